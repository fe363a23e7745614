import DouyinLogging
import Foundation

extension TwoTierCache {
    /// The limits of the three parts a ``TwoTierCache`` makes for itself in
    /// ``TwoTierCache/init(directory:configuration:)``.
    public struct Configuration: Sendable, Hashable {
        /// The memory tier's limits: 64 MB of bytes by default, no count or age limit.
        public var memory: MemoryCache<String, Data>.Configuration
        /// The disk tier's limits: 512 MB of bytes by default, no age limit.
        public var disk: DiskCache.Configuration
        /// The downloader's limits: 6 downloads at once and 64 MB per body by default.
        public var downloader: Downloader.Configuration
        /// One hook for the whole cache: the two-tier cache's own events (a download not stored
        /// on disk) and, for each part whose own `log` is `nil`, that part's (memory
        /// evictions, disk refusals and evictions, downloads started and ended); an
        /// ``ImagePrefetcher`` over the cache uses it too unless given its own. `nil` by
        /// default: nothing is logged (the downloader's `log`, when set, then receives the
        /// cache's own events).
        public var log: LogHandler?

        /// Builds a configuration from the parts' own; `log` `nil` by default.
        public init(
            memory: MemoryCache<String, Data>.Configuration = .init(),
            disk: DiskCache.Configuration = .init(),
            downloader: Downloader.Configuration = .init(),
            log: LogHandler? = nil
        ) {
            self.memory = memory
            self.disk = disk
            self.downloader = downloader
            self.log = log
        }

        /// The parts' configurations with ``log`` filled in where theirs is `nil`.
        var parts: (memory: MemoryCache<String, Data>.Configuration, disk: DiskCache.Configuration, downloader: Downloader.Configuration) {
            var (memory, disk, downloader) = (memory, disk, downloader)
            memory.log = memory.log ?? log
            disk.log = disk.log ?? log
            downloader.log = downloader.log ?? log
            return (memory, disk, downloader)
        }
    }

    /// Hit and miss counts of a ``TwoTierCache``, per tier, since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Answers from memory.
        public var memoryHits = 0
        /// Answers from disk.
        public var diskHits = 0
        /// Requests that found neither tier and waited for a download.
        public var misses = 0
        /// Downloads started (one per URL however many callers waited).
        public var downloads = 0
        /// Downloads that failed.
        public var downloadFailures = 0
        /// Downloads the disk tier could not store (kept in memory only).
        public var diskWriteFailures = 0
        /// Downloads whose length could not be checked (a body delimited only by the server
        /// closing the connection, see ``DownloadedData/isLengthChecked``): handed to their
        /// waiters, stored in neither tier.
        public var uncheckedDownloads = 0
    }
}
