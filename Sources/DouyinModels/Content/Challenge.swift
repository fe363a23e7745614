import Foundation

/// A hashtag campaign a post joined. ``cid`` is required; the name reads as "" when absent.
public struct Challenge: Codable, Sendable, Hashable {
    /// The challenge's id (a string or a number in the JSON).
    public var cid: String
    /// The challenge's name, shown with a `#`; "" when absent.
    public var chaName: String
    /// The challenge's description; `nil` when absent.
    public var desc: String?
    /// How many users joined; `nil` when absent. Number or numeric string, written back as a number.
    public var userCount: Int?

    enum CodingKeys: String, CodingKey {
        case cid, desc
        case chaName = "cha_name"
        case userCount = "user_count"
    }

    /// A challenge with its id and any other fields; each left out is what absent means ("" for
    /// the name, `nil` otherwise).
    public init(cid: String, chaName: String = "", desc: String? = nil, userCount: Int? = nil) {
        self.cid = cid
        self.chaName = chaName
        self.desc = desc
        self.userCount = userCount
    }

    /// Decodes a challenge; only `cid` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cid = try c.decodeID(forKey: .cid)
        chaName = try c.decodeText(forKey: .chaName)
        desc = try c.decodeIfPresent(String.self, forKey: .desc)
        userCount = try c.decodeCountIfPresent(forKey: .userCount)
    }
}
