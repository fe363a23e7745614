#if canImport(CCurl)
import CCurl
import Foundation

/// libcurl's result codes as `URLError`s, the one error vocabulary of the seam, so that retry
/// rules (`RetryDecision`) and the modules' public errors keep their meaning on any transport.
enum CurlErrors {
    /// `code` as a `URLError`, with libcurl's own message and code in its user info.
    static func urlError(_ code: CURLcode, detail: String, url: URL) -> URLError {
        let message = String(cString: curl_easy_strerror(code))
        return URLError(Self.code(for: code), userInfo: [
            NSLocalizedDescriptionKey: detail.isEmpty ? message : "\(message): \(detail)",
            NSURLErrorFailingURLErrorKey: url,
            "CURLcode": Int(code.rawValue),
        ])
    }

    /// The `URLError.Code` nearest to libcurl's meaning.
    static func code(for code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL: .unsupportedURL
        case CURLE_URL_MALFORMAT: .badURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .cannotFindHost
        case CURLE_COULDNT_CONNECT: .cannotConnectToHost
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_PEER_FAILED_VERIFICATION: .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_SHUTDOWN_FAILED:
            .secureConnectionFailed
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            .networkConnectionLost
        case CURLE_WEIRD_SERVER_REPLY: .badServerResponse
        case CURLE_BAD_CONTENT_ENCODING: .cannotDecodeContentData
        case CURLE_FILESIZE_EXCEEDED: .dataLengthExceedsMaximum
        case CURLE_TOO_MANY_REDIRECTS: .httpTooManyRedirects
        case CURLE_OUT_OF_MEMORY: .cannotLoadFromNetwork
        case CURLE_ABORTED_BY_CALLBACK, CURLE_WRITE_ERROR: .cancelled  // only after our own cancel
        case CURLE_READ_ERROR: .cannotOpenFile
        default: .unknown
        }
    }
}
#endif
