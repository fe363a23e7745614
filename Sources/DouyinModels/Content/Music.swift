import Foundation

/// A post's soundtrack. Every field is `nil` when absent, except the title and author ("").
public struct Music: Codable, Sendable, Hashable {
    /// The 19-digit music id, as a string (a string or a bare number beyond 2^53 in the JSON).
    public var id: String?
    /// The same id as the API's string field, when sent.
    public var idStr: String?
    /// The track's title; "" when absent.
    public var title: String
    /// The track's author; "" when absent.
    public var author: String
    /// Length in **seconds** as sent (``Video/duration`` is in milliseconds); see ``length``.
    public var duration: Int?
    /// The audio file.
    public var playURL: ImageSet?
    /// The large cover.
    public var coverLarge: ImageSet?
    /// The medium cover.
    public var coverMedium: ImageSet?
    /// The thumbnail cover.
    public var coverThumb: ImageSet?
    /// The HD cover.
    public var coverHD: ImageSet?
    /// How many posts use the track (a number or a numeric string in the JSON, written back as a number).
    public var userCount: Int?
    /// JSON inside a string, as the API sends it; see ``decodedExtra(as:)``.
    public var extra: String?

    enum CodingKeys: String, CodingKey {
        case id, title, author, duration, extra
        case idStr = "id_str"
        case playURL = "play_url"
        case coverLarge = "cover_large"
        case coverMedium = "cover_medium"
        case coverThumb = "cover_thumb"
        case coverHD = "cover_hd"
        case userCount = "user_count"
    }

    /// A track with any of its fields; each left out is what absent means (`nil`, "" for the
    /// title and author), so `Music()` has none set. ``duration`` is in seconds.
    public init(id: String? = nil, idStr: String? = nil, title: String = "", author: String = "", duration: Int? = nil,
                playURL: ImageSet? = nil, coverLarge: ImageSet? = nil, coverMedium: ImageSet? = nil, coverThumb: ImageSet? = nil,
                coverHD: ImageSet? = nil, userCount: Int? = nil, extra: String? = nil) {
        self.id = id
        self.idStr = idStr
        self.title = title
        self.author = author
        self.duration = duration
        self.playURL = playURL
        self.coverLarge = coverLarge
        self.coverMedium = coverMedium
        self.coverThumb = coverThumb
        self.coverHD = coverHD
        self.userCount = userCount
        self.extra = extra
    }

    /// Decodes a track; nothing is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIDIfPresent(forKey: .id)
        idStr = try c.decodeIfPresent(String.self, forKey: .idStr)
        title = try c.decodeText(forKey: .title)
        author = try c.decodeText(forKey: .author)
        duration = try c.decodeIfPresent(Int.self, forKey: .duration)
        playURL = try c.decodeIfPresent(ImageSet.self, forKey: .playURL)
        coverLarge = try c.decodeIfPresent(ImageSet.self, forKey: .coverLarge)
        coverMedium = try c.decodeIfPresent(ImageSet.self, forKey: .coverMedium)
        coverThumb = try c.decodeIfPresent(ImageSet.self, forKey: .coverThumb)
        coverHD = try c.decodeIfPresent(ImageSet.self, forKey: .coverHD)
        userCount = try c.decodeCountIfPresent(forKey: .userCount)
        extra = try c.decodeIfPresent(String.self, forKey: .extra)
    }

    /// The length as a `Duration` (``duration`` is in seconds); `nil` when absent.
    public var length: Duration? { duration.map { .seconds($0) } }

    /// Decodes the JSON held inside ``extra``; `nil` when there is none.
    public func decodedExtra<T: Decodable>(as type: T.Type = JSONValue.self) throws -> T? {
        guard let extra, !extra.isEmpty else { return nil }
        return try JSONDecoder().decode(type, from: Data(extra.utf8))
    }
}
