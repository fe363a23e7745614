import Foundation

/// The video files of a post and their covers. Every field is `nil` when absent.
public struct Video: Codable, Sendable, Hashable {
    /// The full-quality stream.
    public var playAddr: ImageSet?
    /// A lower-bitrate stream for slow networks.
    public var playAddrLowbr: ImageSet?
    /// The still cover.
    public var cover: ImageSet?
    /// The cover at the video's own aspect ratio.
    public var originCover: ImageSet?
    /// The animated WebP cover shown in profile grids.
    public var dynamicCover: ImageSet?
    /// The watermarked file for downloads.
    public var downloadAddr: ImageSet?
    /// Width in pixels.
    public var width: Int?
    /// Height in pixels.
    public var height: Int?
    /// Length in **milliseconds** as sent (``Music/duration`` is in seconds); see ``length``.
    public var duration: Int?
    /// The quality label, such as `720p`.
    public var ratio: String?
    /// Whether the files carry a watermark.
    public var hasWatermark: Bool?
    /// The stream's quality levels with their bitrates (`bit_rate`), as sent: the captures
    /// send one, Douyin's own API one per gear. `nil` when absent; see ``BitRate``.
    public var bitRate: [BitRate]?

    enum CodingKeys: String, CodingKey {
        case cover, width, height, duration, ratio
        case bitRate = "bit_rate"
        case playAddr = "play_addr"
        case playAddrLowbr = "play_addr_lowbr"
        case originCover = "origin_cover"
        case dynamicCover = "dynamic_cover"
        case downloadAddr = "download_addr"
        case hasWatermark = "has_watermark"
    }

    /// A video with any of its fields; each left out is `nil` (absent), so `Video()` has none set.
    public init(playAddr: ImageSet? = nil, playAddrLowbr: ImageSet? = nil, cover: ImageSet? = nil, originCover: ImageSet? = nil,
                dynamicCover: ImageSet? = nil, downloadAddr: ImageSet? = nil, width: Int? = nil, height: Int? = nil,
                duration: Int? = nil, ratio: String? = nil, hasWatermark: Bool? = nil, bitRate: [BitRate]? = nil) {
        self.playAddr = playAddr
        self.playAddrLowbr = playAddrLowbr
        self.cover = cover
        self.originCover = originCover
        self.dynamicCover = dynamicCover
        self.downloadAddr = downloadAddr
        self.width = width
        self.height = height
        self.duration = duration
        self.ratio = ratio
        self.hasWatermark = hasWatermark
        self.bitRate = bitRate
    }

    /// The length as a `Duration` (``duration`` is in milliseconds); `nil` when absent.
    public var length: Duration? { duration.map { .milliseconds($0) } }
}
