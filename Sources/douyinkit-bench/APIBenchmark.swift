import DouyinKit
import DouyinBackendLauncher
import DouyinTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `douyinkit-bench api`: 100 pages of 21 awemes from the local backend through `APIClient`
/// (encoding, validation, envelope, retries armed) against plain URLSession + JSONDecoder of
/// `APIResponse<[Aweme]>` on the same URLs. Runs alternate A B A B… so both see the same
/// machine; the figure is the median of the pairwise ratios, with their min–max. Target ≤ 1.15×.
enum APIBenchmark {
    static let pagesPerRun = 100
    static let pairs = 9
    static let warmUpPairs = 2

    static func run() async throws {
        print("api: \(pagesPerRun) pages of 21 awemes from the local backend, APIClient vs URLSession + JSONDecoder")
        let backend = try await LocalBackend.start()
        defer { backend.stop() }
        let client = APIClient(baseURL: backend.baseURL)
        let session = URLSession(configuration: {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            return configuration
        }())
        defer { session.finishTasksAndInvalidate() }
        // feed-large.json holds 150 awemes: pages 0…6 are full pages of 21; cycle through them.
        let urls = (0..<pagesPerRun).compactMap { index in
            URL(string: "aweme/post?uid=97795069001&page=\(index % 7)&size=21", relativeTo: backend.baseURL)?.absoluteURL
        }

        func viaClient() async throws -> Double {
            let start = ContinuousClock.now
            for index in 0..<pagesPerRun {
                let page = try await client.value(.awemePost(uid: "97795069001", page: index % 7))
                precondition(page.count == 21, "page \(index % 7) had \(page.count) items")
            }
            return seconds(ContinuousClock.now - start)
        }
        func viaURLSession() async throws -> Double {
            let start = ContinuousClock.now
            for url in urls {
                let (data, _) = try await fetch(session, url)
                let page = try JSONDecoder().decode(APIResponse<[Aweme]>.self, from: data)
                precondition(page.data?.count == 21)
            }
            return seconds(ContinuousClock.now - start)
        }

        // URLSession + JSONDecoder is the baseline, APIClient the subject (baseline first in
        // each pair, as every suite does).
        let comparison = try await interleavedPairs(pairs: pairs, warmups: warmUpPairs, baseline: viaURLSession, subject: viaClient)
        print("  URLSession + JSONDecoder (baseline) median \(fixed(comparison.medianBaseline * 1000, 1)) ms | APIClient median \(fixed(comparison.medianSubject * 1000, 1)) ms per \(pagesPerRun) pages")
        print("  time APIClient / baseline: \(comparison.summary(.time, target: 1.15))")
    }

    /// One GET with the completion-handler API, which FoundationNetworking has everywhere.
    static func fetch(_ session: URLSession, _ url: URL) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: url) { data, response, error in
                if let error { continuation.resume(throwing: error) } else if let data, let response {
                    continuation.resume(returning: (data, response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }
}
