import Foundation

/// The API's envelope as the client reads it: only `code` is required. DouyinModels'
/// `APIResponse` is the public model of the same JSON; this one decodes any `Decodable` payload
/// and tells "data absent or null" apart without a cast.
struct Envelope<Payload: Decodable>: Decodable {
    let code: Int
    let message: String
    let data: Payload?
    let totalCount: Int?
    let hasMore: Bool

    enum CodingKeys: String, CodingKey {
        case code, message, data
        case totalCount = "total_count"
        case hasMore = "has_more"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int.self, forKey: .code)
        message = (try? container.decodeIfPresent(String.self, forKey: .message)) ?? ""
        data = try container.decodeIfPresent(Payload.self, forKey: .data)
        totalCount = (try? container.decodeIfPresent(Int.self, forKey: .totalCount))
            ?? (try? container.decodeIfPresent(String.self, forKey: .totalCount)).flatMap { $0.flatMap(Int.init) }
        // 0/1 as the API sends it, or true/false; anything else reads as "no more".
        if let number = try? container.decodeIfPresent(Int.self, forKey: .hasMore) {
            hasMore = number != 0
        } else {
            hasMore = (try? container.decodeIfPresent(Bool.self, forKey: .hasMore)) ?? false
        }
    }
}

/// Just the status of an envelope, read when the whole one did not decode, so a failure the
/// server reported (`code` ≠ 0 with odd `data`) is not mistaken for a shape problem.
struct EnvelopeStatus: Decodable {
    let code: Int
    let message: String?
}
