import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the `URLRequest` of an ``APIRequest``: query for GET and DELETE, a form body for POST,
/// multipart when there are files.
enum RequestEncoding {
    /// The characters sent as themselves: RFC 3986's unreserved set. Everything else, `+`, `&`,
    /// `=`, `%` and every non-ASCII byte included, is percent-encoded from UTF-8, so a server
    /// decoding either as a query or as a form reads back exactly what was sent.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%"
                out += hexDigits[Int(byte >> 4)]
                out += hexDigits[Int(byte & 0x0F)]
            }
        }
        return out
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]

    /// `name=value&…`, each side escaped.
    static func form(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    static func urlRequest<Response>(for request: APIRequest<Response>, baseURL: URL, timeout: Duration, boundary: @autoclosure () -> String) throws(APIError) -> URLRequest {
        // One rule for a base with a query or a fragment: refused. Appending the endpoint's path
        // after `?x=1` or `#f` builds a URL that names another resource (the path lands in the
        // query or the fragment), and merging queries would guess what the caller meant.
        // Parsed, a `?` or `#` can only be the delimiter (inside a part it is percent-encoded).
        if baseURL.absoluteString.contains("?") || baseURL.absoluteString.contains("#") {
            throw .invalidRequest(endpoint: request.endpoint, reason: "the base URL \(baseURL.absoluteString) has a query or a fragment; give the API's folder only, such as http://HOST:PORT/douyin/")
        }
        let base = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        let method = request.endpoint.method
        var address = base + request.endpoint.path
        if !method.sendsBody, !request.parameters.isEmpty {
            address += "?" + form(request.parameters)
        }
        guard let url = URL(string: address), url.scheme == "http" || url.scheme == "https" else {
            throw .invalidRequest(endpoint: request.endpoint, reason: "\(address) is not an http(s) URL")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method.rawValue
        urlRequest.timeoutInterval = timeout.inSeconds
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        if method.sendsBody {
            if request.files.isEmpty {
                urlRequest.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
                urlRequest.httpBody = Data(form(request.parameters).utf8)
            } else {
                let multipart = Multipart(boundary: boundary(), fields: request.parameters, files: request.files)
                urlRequest.setValue(multipart.contentType, forHTTPHeaderField: "Content-Type")
                urlRequest.httpBody = multipart.body
            }
        }
        return urlRequest
    }
}

/// A `multipart/form-data` body (RFC 7578): the fields as text parts, then each file with its own
/// `Content-Type` (the demo app sent `multipart/form-data` as the part's type, which told the
/// server nothing).
struct Multipart {
    let boundary: String
    let fields: [(name: String, value: String)]
    let files: [FilePart]

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    var body: Data {
        var body = Data()
        for field in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(field.name))\"\r\n\r\n".utf8)
            body += Data(field.value.utf8)
            body += Data("\r\n".utf8)
        }
        for file in files {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(file.name))\"; filename=\"\(Self.quoted(file.filename))\"\r\nContent-Type: \(file.mediaType)\r\n\r\n".utf8)
            body += file.data
            body += Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }

    /// A header parameter value without the characters that would end or break it.
    static func quoted(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" && $0 != "\\" }.map(Character.init))
    }
}
