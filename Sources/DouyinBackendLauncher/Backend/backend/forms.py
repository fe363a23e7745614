"""Parameters, paging and request bodies: how a call's input is read and a list is paged."""
from urllib.parse import parse_qs

from backend.state import BAD_PARAMETER, PAGE_SIZES, APIFailure


def required(params, name):
    value = params.get(name)
    if value is None or value == "":
        raise APIFailure(BAD_PARAMETER, f"missing parameter {name}")
    return value


def integer(params, name, default):
    value = params.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise APIFailure(BAD_PARAMETER, f"parameter {name} must be an integer, got {value!r}")
    if number < 0 or number > 1_000_000:
        raise APIFailure(BAD_PARAMETER, f"parameter {name} out of range: {number}")
    return number


def success(data):
    return {"code": 0, "message": "success", "data": data}


def paged(state, items, params, kind, total=None):
    page = integer(params, "page", 0)
    size = integer(params, "size", PAGE_SIZES[kind])
    if size == 0:
        raise APIFailure(BAD_PARAMETER, "parameter size must be positive")
    chunk = items[page * size:(page + 1) * size]
    more = (page + 1) * size < len(items) or state.lie_has_more
    return {"code": 0, "message": "success", "data": chunk,
            "total_count": len(items) if total is None else total, "has_more": 1 if more else 0}


def parameters(method, query, content_type, body):
    """(params, files) of a call: the query's fields, and for a POST the form's or the
    multipart body's fields (files keep their name, type and bytes)."""
    params = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}
    files = []
    if method == "POST":
        if content_type.startswith("application/x-www-form-urlencoded"):
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                raise APIFailure(BAD_PARAMETER, "form body is not UTF-8")
            params.update({k: v[0] for k, v in parse_qs(text, keep_blank_values=True, errors="strict").items()})
        elif content_type.startswith("multipart/form-data"):
            fields, files = parse_multipart(content_type, body)
            params.update(fields)
        elif body:
            raise APIFailure(BAD_PARAMETER, f"unsupported body type {content_type!r}")
    return params, files


def parse_multipart(content_type, body):
    """(fields, files) of a multipart/form-data body; files keep their name, type and bytes."""
    boundary = None
    for piece in content_type.split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip('"')
    if not boundary:
        raise APIFailure(BAD_PARAMETER, "multipart body without a boundary")
    fields, files = {}, []
    delimiter = b"--" + boundary.encode()
    sections = body.split(delimiter)
    if len(sections) < 3 or not sections[-1].startswith(b"--"):
        raise APIFailure(BAD_PARAMETER, "malformed multipart body")
    for section in sections[1:-1]:
        if not section.startswith(b"\r\n") or not section.endswith(b"\r\n"):
            raise APIFailure(BAD_PARAMETER, "malformed multipart part")
        head, separator, data = section[2:-2].partition(b"\r\n\r\n")
        if not separator:
            raise APIFailure(BAD_PARAMETER, "multipart part without headers")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        params = {}
        for piece in headers.get("content-disposition", "").split(";")[1:]:
            key, _, value = piece.strip().partition("=")
            params[key.lower()] = value.strip('"')
        name = params.get("name")
        if name is None:
            raise APIFailure(BAD_PARAMETER, "multipart part without a name")
        if "filename" in params:
            files.append({"name": name, "filename": params["filename"],
                          "content_type": headers.get("content-type", "application/octet-stream"), "data": data})
        else:
            fields[name] = data.decode("utf-8")
    return fields, files
