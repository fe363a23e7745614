import DouyinAPI
import DouyinModels
import DouyinTestSupport
import Foundation
import Testing

/// Every endpoint against the local backend over real loopback HTTP, with the values checked
/// and what the backend received.
@Suite struct EndpointTests {
    @Test func userDecodesTheFixtureProfile() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let result = try await client.send(.user(uid: Known.uid))
        #expect(result.value.uid == Known.uid)
        #expect(result.value.nickname == "Lin Xiao")
        #expect(result.value.signature == "Cats, coffee & code ☕")
        #expect(result.source == .network)
        let sent = try backend.requests(to: "user")
        #expect(sent.count == 1)
        #expect(sent.first?.method == "GET")
        #expect(sent.first?.queryFields == ["uid": Known.uid])
    }

    @Test func awemePostAndFavoritePageWithDefaultSizes() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let first = try await client.send(.awemePost(uid: Known.uid))
        #expect(first.value.count == 21)
        #expect(first.hasMore)
        #expect(first.value.first?.awemeID == "6600000000000000010")
        let favorites = try await client.send(.awemeFavorite(uid: Known.uid))
        #expect(favorites.value.map(\.awemeID) == (1...5).map { "660000000000000000\($0)" })
        // The fixture's total_count (7) disagrees with the 5 items, as the real API's does.
        #expect(favorites.reportedTotalCount == 7)
        #expect(!favorites.hasMore)
        let sent = try backend.requests(to: "aweme/post")
        #expect(sent.first?.queryFields == ["uid": Known.uid, "page": "0", "size": "21"])
    }

    @Test func visitorCreateSendsTheMD5OfTheDeviceIDOnce() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let udid = APIClient.udid(deviceID: "device-1")
        #expect(udid == "d111f50a599b0a9fe3ef9e1c6b68ec88")
        #expect(APIClient.udid(deviceID: "") == "d41d8cd98f00b204e9800998ecf8427e")
        async let first = client.visitor(deviceID: "device-1")
        async let second = client.visitor(deviceID: "device-1")
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(a.udid == udid)
        let again = try await client.visitor(deviceID: "device-1")
        #expect(again == a)
        let sent = try backend.requests(to: "visitor/create")
        #expect(sent.count == 1)
        #expect(sent.first?.method == "POST")
        #expect(sent.first?.formFields == ["udid": udid])
    }

    @Test func commentPostSendsReservedCharactersAndEmojiIntactThenListsAndDeletes() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let visitor = try await client.visitor(deviceID: "tester")
        let text = "a&b=c+d%20e 100% 😺 [微笑]\nline?#/"
        let posted = try await client.value(.commentPost(awemeID: Known.awemeID, udid: visitor.udid, text: text))
        #expect(posted.text == text)
        #expect(posted.visitor?.udid == visitor.udid)

        // What went over the wire: a form body whose every reserved character is escaped.
        let sent = try #require(try backend.requests(to: "comment/post").first)
        #expect(sent.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
        let body = String(decoding: sent.bodyData, as: UTF8.self)
        #expect(!body.contains("+"))
        #expect(body.components(separatedBy: "&").count == 3)
        #expect(sent.formFields["text"] == text)
        #expect(sent.query == "")

        let listed = try await client.value(.commentList(awemeID: Known.awemeID))
        #expect(listed.first?.cid == posted.cid)
        #expect(listed.count == 4)

        let deleted = try await client.send(.commentDelete(cid: posted.cid, udid: visitor.udid))
        #expect(deleted.value == NoContent())
        let delete = try #require(try backend.requests(to: "comment/delete").first)
        #expect(delete.method == "DELETE")
        #expect(delete.queryFields == ["cid": posted.cid, "udid": visitor.udid])
        #expect(delete.bodyData.isEmpty)
        let after = try await client.value(.commentList(awemeID: Known.awemeID))
        #expect(!after.contains { $0.cid == posted.cid })
        #expect(after.count == 3)
    }

    @Test func groupChatTextImageImagesListAndDelete() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let udid = APIClient.udid(deviceID: "chatter")
        let text = try await client.value(.groupChatText(udid: udid, text: "hi & bye = +1 🦄"))
        #expect(text.msgType == .text)
        #expect(text.msgContent == "hi & bye = +1 🦄")

        let gif = Data("GIF89a".utf8) + Data([3, 0, 2, 0, 0, 0, 0])
        let image = try await client.value(.groupChatImage(udid: udid, image: tinyPNG))
        #expect(image.msgType == .image)
        #expect(image.picOriginal?.type == "image/png")
        #expect(image.picOriginal?.width == 5)
        #expect(image.picOriginal?.height == 7)
        let imageURL = try #require(image.picOriginal?.imageURL)
        #expect(imageURL.path == "/douyin/image")

        let several = try await client.value(.groupChatImages(udid: udid, images: [FilePart(data: tinyPNG), FilePart(data: gif)]))
        #expect(several.map { $0.picOriginal?.type } == ["image/png", "image/gif"])

        // The multipart body: the udid field, then each file part with its own type and bytes.
        let upload = try #require(try backend.requests(to: "groupchat/images").first)
        let contentType = try #require(upload.header("Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let parts = multipartParts(upload.bodyData, boundary: String(contentType.split(separator: "=", maxSplits: 1)[1]))
        #expect(parts.map(\.headers) == [
            ["Content-Disposition: form-data; name=\"udid\""],
            ["Content-Disposition: form-data; name=\"file\"; filename=\"image.png\"", "Content-Type: image/png"],
            ["Content-Disposition: form-data; name=\"file\"; filename=\"image.gif\"", "Content-Type: image/gif"],
        ])
        #expect(parts.map(\.body) == [Data(udid.utf8), tinyPNG, gif])

        let listed = try await client.value(.groupChatList())
        #expect(listed.prefix(4).map(\.id) == [several[1].id, several[0].id, image.id, text.id])

        _ = try await client.send(.groupChatDelete(id: text.id, udid: udid))
        let after = try await client.value(.groupChatList())
        #expect(!after.contains { $0.id == text.id })
        let delete = try #require(try backend.requests(to: "groupchat/delete").first)
        #expect(delete.queryFields == ["id": text.id, "udid": udid])
    }

    @Test func sniffedMediaTypes() {
        #expect(ImageType.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageType.sniff(tinyPNG) == .png)
        #expect(ImageType.sniff(Data("GIF87a".utf8)) == .gif)
        #expect(ImageType.sniff(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageType.sniff(Data([0, 0, 0, 0x18]) + Data("ftypheic".utf8)) == .heic)
        #expect(ImageType.sniff(Data([0, 0, 0, 0x18]) + Data("ftypmp42".utf8)) == .unknown)
        #expect(ImageType.sniff(Data()) == .unknown)
        #expect(ImageType.heic.mediaType == "image/heic")
        #expect(ImageType.webp.mediaType == "image/webp")
        #expect(FilePart(data: Data([0xFF, 0xD8, 0xFF])).mediaType == "image/jpeg")
    }

    @Test func serverCodeIsAnAPIErrorWithCodeAndMessage() async throws {
        let backend = try await LocalBackend.start()
        let client = makeClient(backend)
        let error = await apiError { try await client.send(.user(uid: "1")) }
        guard case .server(let endpoint, let code, let message) = error else {
            Issue.record("expected a server error, got \(String(describing: error))")
            return
        }
        #expect(endpoint == .user)
        #expect(code == 2001)
        #expect(message == "user 1 not found")
        let badPage = await apiError { try await client.send(APIRequest<[DouyinModels.Comment]>(endpoint: .commentList, parameters: [("aweme_id", Known.awemeID), ("page", "x")])) }
        guard case .server(_, 1, let text) = badPage else {
            Issue.record("expected code 1, got \(String(describing: badPage))")
            return
        }
        #expect(text.contains("page"))
        // A server failure is not retried.
        #expect(try backend.requests(to: "comment/list").count == 1)
    }
}

/// The parts of a multipart body: header lines and bytes of each.
func multipartParts(_ body: Data, boundary: String) -> [(headers: [String], body: Data)] {
    let delimiter = Data("--\(boundary)".utf8)
    var parts: [(headers: [String], body: Data)] = []
    var rest = body[...]
    var sections: [Data] = []
    while let range = rest.range(of: delimiter) {
        sections.append(Data(rest[..<range.lowerBound]))
        rest = rest[range.upperBound...]
    }
    for section in sections.dropFirst() {
        guard section.count >= 4 else { continue }
        let inner = section.dropFirst(2).dropLast(2)
        guard let split = inner.range(of: Data("\r\n\r\n".utf8)) else { continue }
        let head = String(decoding: inner[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        parts.append((head, Data(inner[split.upperBound...])))
    }
    return parts
}
