import DouyinVideoCache

extension CoverPipeline {
    /// Why a cover could not be shown.
    public enum CoverError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The origin answered a status other than 200/206.
        case httpStatus(Int, url: String)
        /// The transfer failed.
        case transport(url: String, reason: String)
        /// The bytes are not a WebP this pipeline can decode.
        case undecodable(url: String, reason: String)
        /// The origin's answer contradicts itself or the request (a body longer or shorter than
        /// its Content-Range or Content-Length, an unreadable header); the video cache's error
        /// says which.
        case invalidAnswer(url: String, VideoCacheError)
        /// The pipeline's configuration has a field outside its allowed range: `field` is the
        /// field's Swift name, `value` the value given and `allowed` the range, as text.
        /// Thrown by ``CoverPipeline/init(imageCache:decodeQueues:origin:configuration:)``;
        /// nothing is clamped.
        case configurationOutOfRange(field: String, value: String, allowed: String)

        /// One line saying what went wrong.
        public var description: String {
            switch self {
            case .httpStatus(let status, let url): "HTTP \(status) for cover \(url)"
            case .transport(let url, let reason): "cover download \(url) failed: \(reason)"
            case .undecodable(let url, let reason): "cover \(url) is not a decodable WebP: \(reason)"
            case .invalidAnswer(let url, let error): "cover \(url): \(error)"
            case .configurationOutOfRange(let field, let value, let allowed): "\(field) \(value) is outside \(allowed)"
            }
        }
    }
}
