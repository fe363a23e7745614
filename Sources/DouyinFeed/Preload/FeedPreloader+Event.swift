extension FeedPreloader {
    /// One job's result, for logs and the `feed preload` verb.
    public struct Event: Sendable, Hashable {
        /// The job.
        public var job: PreloadPlanner.Job
        /// Video: bytes of the job's range held (and indexed) afterwards; image: the file's
        /// size; 0 when it failed or was fetched without storing.
        public var bytes: Int64
        /// Whether anything came from the network (`false`: everything was already held).
        public var fetched: Bool
        /// Why it failed, if it did (cancellation is not a failure and gets no event). A video
        /// job fails unless every byte of its range is held and indexed at its end: a full or
        /// read-only disk, a cache file name taken by a link, FIFO or directory, or bytes dropped
        /// by a new version are failures, never "cached".
        public var failure: String?
        /// Set when a video's bytes were fetched but not stored because another process holds
        /// its cache entry (that process stores them): why. `nil` otherwise.
        public var uncachedReason: String?
    }
}
