import DouyinSupport
import Foundation

/// The preloader's pure rules: which items are in the window, what to fetch for each and in
/// which order, and how much of the playing video must be held before any preload may run.
///
/// No state and no I/O; ``PreloadScheduler`` keeps the state and ``FeedPreloader`` performs it.
public enum PreloadPlanner {
    /// The rules' numbers.
    public struct Configuration: Sendable, Hashable {
        /// Items preloaded after the current one: 3 by default.
        public var ahead: Int = 3
        /// Items preloaded before the current one: 1 by default.
        public var behind: Int = 1
        /// The first bytes of each video preloaded: 819,200 (800 KB, about 4 s at the feeds'
        /// median 1.53 Mbit/s) by default.
        public var prefixBytes: Int64 = 819_200
        /// When set, a video whose bitrate is known gets this much of it instead of
        /// ``prefixBytes`` (bitrate × seconds / 8); `nil` (the default) always uses ``prefixBytes``.
        public var prefixDuration: Duration?
        /// How much of the playing video must be held ahead of its read position before any
        /// preload starts: 3 s of video by default, in bytes from its bitrate (or from its length
        /// and duration); when neither is known, the whole file.
        public var watermark: Duration = .seconds(3)
        /// Preloads at once while the playing video still downloads: 1 by default.
        public var concurrencyWhileDownloading: Int = 1
        /// Preloads at once once the playing video is held whole: 2 by default.
        public var concurrencyWhenComplete: Int = 2
        /// Whether covers and avatars of the window are fetched too: `true` by default.
        public var includesImages: Bool = true
        /// Whether a video whose first bytes show `moov` after `mdat` also gets its tail
        /// (from the end of `mdat`) preloaded: `true` by default.
        public var fetchesMoovTail: Bool = true

        /// The defaults.
        public init() {}
    }

    /// What a job fetches.
    public enum Kind: Sendable, Hashable, Comparable {
        /// The first bytes of a video, into the video cache.
        case videoPrefix
        /// The end of a non-faststart video holding its `moov` box, into the video cache.
        case videoTail
        /// The cover, into the image cache.
        case cover
        /// The author's avatar, into the image cache.
        case avatar
    }

    /// One piece of preload work.
    public struct Job: Sendable, Hashable, CustomStringConvertible {
        /// The item's index in the feed.
        public var index: Int
        /// What is fetched.
        public var kind: Kind
        /// From where.
        public var url: URL
        /// The bytes, for videos; `nil` for images (the whole file).
        public var range: Range<Int64>?

        /// A job from its parts.
        public init(index: Int, kind: Kind, url: URL, range: Range<Int64>?) {
            self.index = index
            self.kind = kind
            self.url = url
            self.range = range
        }

        /// Whether the job waits for the playing video's watermark. The current item's cover
        /// and avatar are on screen now, so they are not preloads and never wait.
        public func isGated(current: Int) -> Bool {
            !(index == current && (kind == .cover || kind == .avatar))
        }

        /// `videoPrefix 4 http://… 0-819199`, for logs and test failures.
        public var description: String {
            let bytes = range.map { " \($0.lowerBound)-\($0.upperBound - 1)" } ?? ""
            return "\(kind) \(index) \(url.absoluteString)\(bytes)"
        }
    }

    /// The window's indices nearest first: the current item, then at each distance the item
    /// ahead before the one behind (people swipe forwards far more than back), within `0..<count`.
    public static func window(current: Int, count: Int, configuration: Configuration = Configuration()) -> [Int] {
        guard count > 0, (0..<count).contains(current) else { return [] }
        var indices = [current]
        // Clamped to the feed first: the loop runs once per item, never once per unit of an
        // option (`ahead` of 2^62 once looped for ever).
        let ahead = min(max(0, configuration.ahead), count - 1 - current)
        let behind = min(max(0, configuration.behind), current)
        guard ahead > 0 || behind > 0 else { return indices }
        for distance in 1...max(ahead, behind) {
            if distance <= ahead, current + distance < count { indices.append(current + distance) }
            if distance <= behind, current - distance >= 0 { indices.append(current - distance) }
        }
        return indices
    }

    /// The bytes of an item's video to preload: ``Configuration/prefixDuration`` of it when
    /// both that and the bitrate are known, else ``Configuration/prefixBytes``; at least 1.
    public static func prefixLength(of item: FeedItem, configuration: Configuration = Configuration()) -> Int64 {
        if let duration = configuration.prefixDuration, let rate = item.bitRate {
            return max(1, bytes(of: duration, bitRate: Int64(rate)))
        }
        return max(1, configuration.prefixBytes)
    }

    /// The bytes of the playing video that must be held ahead of its read position before
    /// preloads may start: the watermark's worth at the item's bitrate, else at `length` over
    /// its duration; `nil` when neither is known (then the whole file must be held).
    public static func watermarkBytes(of item: FeedItem, length: Int64?, configuration: Configuration = Configuration()) -> Int64? {
        if let rate = item.bitRate {
            return max(1, bytes(of: configuration.watermark, bitRate: Int64(rate)))
        }
        if let length, length > 0, let duration = item.duration {
            let perSecond = Double(length) / duration.inSeconds
            return max(1, Int64(min(Double(Int64.max / 2), perSecond * watermarkSeconds(configuration))))
        }
        return nil
    }

    /// Every job of the window around `current`, in the order they should run: nearest item
    /// first; per item its video's first bytes, then its `moov` tail when `tails` knows one,
    /// then cover and avatar. The current item's own video is the player's, never a job.
    public static func jobs(items: [FeedItem], current: Int, tails: [URL: Range<Int64>] = [:], configuration: Configuration = Configuration()) -> [Job] {
        var jobs: [Job] = []
        for index in window(current: current, count: items.count, configuration: configuration) {
            let item = items[index]
            if index != current, let url = item.videoURL {
                jobs.append(Job(index: index, kind: .videoPrefix, url: url, range: 0..<prefixLength(of: item, configuration: configuration)))
                if let tail = tails[url] {
                    jobs.append(Job(index: index, kind: .videoTail, url: url, range: tail))
                }
            }
            if configuration.includesImages {
                if let url = item.coverURL { jobs.append(Job(index: index, kind: .cover, url: url, range: nil)) }
                if let url = item.avatarURL { jobs.append(Job(index: index, kind: .avatar, url: url, range: nil)) }
            }
        }
        return jobs
    }

    private static func watermarkSeconds(_ configuration: Configuration) -> Double {
        max(0, configuration.watermark.inSeconds)
    }

    private static func bytes(of duration: Duration, bitRate: Int64) -> Int64 {
        Int64(min(Double(Int64.max / 2), max(0, duration.inSeconds) * Double(bitRate) / 8))
    }
}
