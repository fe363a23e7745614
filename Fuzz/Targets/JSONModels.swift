// DouyinModels' Codable models decoding a server's JSON: Aweme, User, Comment, GroupChat, the
// app's envelope (DouyinAppResponse) and the demo API's (APIResponse). Properties: decoding
// never traps; what decodes re-encodes, and that decodes equal to it.
//
// Input: byte 0 picks the type; the rest is the JSON.
import DouyinModels
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonModelsFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let json = Data(UnsafeBufferPointer(start: data + 1, count: count - 1))
    switch data[0] % 8 {
    case 0: roundTrip(Aweme.self, json)
    case 1: roundTrip(User.self, json)
    case 2: roundTrip(Comment.self, json)
    case 3: roundTrip(GroupChat.self, json)
    case 4: roundTrip(DouyinAppResponse.self, json)
    case 5: roundTrip(APIResponse<[Aweme]>.self, json)
    case 6: roundTrip(APIResponse<[Comment]>.self, json)
    default: roundTrip(APIResponse<[GroupChat]>.self, json)
    }
    return 0
}

private func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ json: Data) {
    guard let value = try? JSONDecoder().decode(T.self, from: json) else { return }
    let encoded: Data
    do { encoded = try JSONEncoder().encode(value) } catch { return require(false, "\(T.self) decoded but does not encode: \(error)") }
    do {
        let again = try JSONDecoder().decode(T.self, from: encoded)
        require(again == value, "\(T.self) re-encoded as \(String(decoding: encoded, as: UTF8.self)) decodes to \(again), not \(value)")
    } catch {
        require(false, "\(T.self) re-encoded as \(String(decoding: encoded, as: UTF8.self)) does not decode: \(error)")
    }
}
