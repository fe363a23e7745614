import DouyinSupport
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func namesAreComparedCaseInsensitively() {
        let headers = HTTPHeaders([("Content-Range", "bytes 0-9/100")])
        #expect(headers["content-range"] == "bytes 0-9/100")
        #expect(headers["CONTENT-RANGE"] == "bytes 0-9/100")
        #expect(headers.contains("cOnTeNt-RaNgE"))
        #expect(headers["Content-Length"] == nil)
        #expect(!headers.contains("Content-Length"))
    }

    /// RFC 9110 §5.3: repeats read as one value, joined with ", " in the order they came, so
    /// two different Content-Lengths read as `42, 103` and are refused above the seam.
    @Test func repeatsAreKeptAndReadJoinedInOrder() {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "42")
        headers.add("content-length", "103")
        #expect(headers["Content-Length"] == "42, 103")
        #expect(headers.fields.count == 2)
        #expect(headers.lowercasedDictionary == ["content-length": "42, 103"])
        #expect(headers.dictionary == ["Content-Length": "42, 103"])
    }

    @Test func setReplacesEveryRepeatAndNilRemovesThem() {
        var headers = HTTPHeaders([("Accept", "a"), ("Range", "bytes=0-1"), ("accept", "b")])
        headers.set("ACCEPT", "c")
        #expect(headers.fields.map(\.name) == ["Range", "ACCEPT"])
        #expect(headers["accept"] == "c")
        headers.set("accept", nil)
        #expect(!headers.contains("Accept"))
        headers.remove("range")
        #expect(headers.fields.isEmpty)
    }

    @Test func iterationKeepsTheOrderAndTheSpelling() {
        let headers = HTTPHeaders([("B", "1"), ("a", "2"), ("b", "3")])
        #expect(headers.map(\.name) == ["B", "a", "b"])
        #expect(headers.map(\.value) == ["1", "2", "3"])
    }

    /// Equal when the same fields come in the same order (a reordering can change a joined
    /// value's meaning); hashing agrees.
    @Test func equalityIsFieldByFieldInOrder() {
        let one = HTTPHeaders([("A", "1"), ("B", "2")])
        #expect(one == HTTPHeaders([("A", "1"), ("B", "2")]))
        #expect(one.hashValue == HTTPHeaders([("A", "1"), ("B", "2")]).hashValue)
        #expect(one != HTTPHeaders([("B", "2"), ("A", "1")]))
        #expect(one != HTTPHeaders([("A", "1")]))
    }

    /// A name with a non-ASCII letter whose lowercase differs in UTF-8 length is not the same
    /// name as an ASCII one (the comparison's length short-cut must not hide a match either).
    @Test func nonASCIINamesCompareByTheirLowercase() {
        let headers = HTTPHeaders([("X-Ä", "1")])
        #expect(headers["x-ä"] == "1")
        #expect(headers["x-a"] == nil)
    }
}
