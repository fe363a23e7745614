import Foundation

/// One quality level of a video's stream (an element of `video.bit_rate`). Every field is `nil`
/// when absent.
public struct BitRate: Codable, Sendable, Hashable {
    /// Bits per second (a number or a numeric string in the JSON, written back as a number).
    public var bitRate: Int?
    /// The level's name, such as `normal`.
    public var gearName: String?
    /// The API's code for the level.
    public var qualityType: Int?

    enum CodingKeys: String, CodingKey {
        case bitRate = "bit_rate"
        case gearName = "gear_name"
        case qualityType = "quality_type"
    }

    /// A level with no fields set.
    public init(bitRate: Int? = nil, gearName: String? = nil, qualityType: Int? = nil) {
        self.bitRate = bitRate
        self.gearName = gearName
        self.qualityType = qualityType
    }

    /// Decodes a level; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bitRate = try c.decodeCountIfPresent(forKey: .bitRate)
        gearName = try c.decodeIfPresent(String.self, forKey: .gearName)
        qualityType = try c.decodeCountIfPresent(forKey: .qualityType)
    }
}
