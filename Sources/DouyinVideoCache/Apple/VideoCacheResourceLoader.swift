#if canImport(AVFoundation)
import AVFoundation
import DouyinSupport
#if canImport(UniformTypeIdentifiers)
import UniformTypeIdentifiers
#endif

/// Plays an `AVURLAsset` through a ``VideoCache``: the player's byte-range requests are
/// answered by a ``VideoReader``, so bytes come from disk where they can and from the origin
/// only where they must.
///
/// ```swift
/// let loader = VideoCacheResourceLoader(cache: cache)
/// let asset = loader.asset(for: videoURL)        // keep `loader` alive while the asset plays
/// player.replaceCurrentItem(with: AVPlayerItem(asset: asset))
/// ```
///
/// - Important: All logic lives in the portable core; this type only translates. It is not
///   exercised by the Linux test suite, which cannot load AVFoundation.
public final class VideoCacheResourceLoader: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: the mutable parts live in `open`, a LockedBox; the rest is immutable
    // (NSObject subclasses cannot be checked).

    /// The scheme prefix that routes an asset's requests to this delegate ("douyinkit-https").
    public static let schemePrefix = "douyinkit-"

    private let cache: VideoCache
    private let queue = DispatchQueue(label: "DouyinVideoCache.ResourceLoader")
    private struct Open {
        var readers: [URL: VideoReader] = [:]
        var tasks: [ObjectIdentifier: Task<Void, Never>] = [:]
    }

    private let open = LockedBox(Open())

    /// A loader answering from `cache`.
    public init(cache: VideoCache) {
        self.cache = cache
    }

    deinit {
        invalidate()
    }

    /// An asset for `url` whose bytes go through the cache. AVFoundation only asks a delegate
    /// about schemes it cannot load itself, hence the prefixed scheme.
    public func asset(for url: URL) -> AVURLAsset {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = Self.schemePrefix + (url.scheme ?? "https")
        let asset = AVURLAsset(url: components?.url ?? url)
        asset.resourceLoader.setDelegate(self, queue: queue)
        return asset
    }

    /// Cancels every running request and closes the readers.
    public func invalidate() {
        let (running, readers) = open.withLock { open -> ([Task<Void, Never>], [VideoReader]) in
            defer { open = Open() }
            return (Array(open.tasks.values), Array(open.readers.values))
        }
        running.forEach { $0.cancel() }
        readers.forEach { $0.close() }
    }

    /// Starts answering a loading request from the cache.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        guard let requestURL = loadingRequest.request.url, let url = Self.originURL(requestURL) else { return false }
        let reader = open.withLock { open -> VideoReader in
            if let existing = open.readers[url] { return existing }
            let made = cache.reader(for: url)
            open.readers[url] = made
            return made
        }
        let request = LoadingRequest(request: loadingRequest)
        let id = ObjectIdentifier(loadingRequest)
        // Made under the lock, so the task's own removal (which takes it) comes after its insertion.
        open.withLock { open in
            open.tasks[id] = Task { [weak self] in
                await request.answer(from: reader)
                self?.forget(id)
            }
        }
        return true
    }

    /// Stops the fetches of a request the player gave up on (a seek, a new item).
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        let task = open.withLock { $0.tasks.removeValue(forKey: ObjectIdentifier(loadingRequest)) }
        task?.cancel()
    }

    private func forget(_ id: ObjectIdentifier) {
        open.withLock { _ = $0.tasks.removeValue(forKey: id) }
    }

    /// The URL an asset made by ``asset(for:)`` stands for.
    static func originURL(_ url: URL) -> URL? {
        guard let scheme = url.scheme, scheme.hasPrefix(schemePrefix) else { return nil }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = String(scheme.dropFirst(schemePrefix.count))
        return components?.url
    }
}

/// One loading request, carried into the task that answers it.
private struct LoadingRequest: @unchecked Sendable {
    // @unchecked Sendable: AVFoundation lets a loading request be answered from any thread;
    // only this request's own task touches it.
    let request: AVAssetResourceLoadingRequest

    /// Fills in the content information and streams the data range, then finishes.
    func answer(from reader: VideoReader) async {
        do {
            let info = try await reader.contentInfo()
            if let information = request.contentInformationRequest {
                information.contentType = Self.uniformType(ofMIME: info.mimeType)
                information.contentLength = info.length ?? 0
                information.isByteRangeAccessSupported = true
            }
            if let data = request.dataRequest {
                let start = data.currentOffset
                let end = data.requestsAllDataToEndOfResource
                    ? (info.length ?? start)
                    : data.requestedOffset + Int64(data.requestedLength)
                if start < end {
                    for try await chunk in reader.chunks(start..<end) {
                        try Task.checkCancellation()
                        data.respond(with: chunk)
                    }
                }
            }
            request.finishLoading()
        } catch is CancellationError {
            // The player cancelled this request; it expects no answer.
        } catch VideoCacheError.cancelled {
            // Likewise, seen through the reader.
        } catch {
            request.finishLoading(with: error)
        }
    }

    /// The uniform type AVFoundation wants for a MIME type; MPEG-4 when the origin said none.
    static func uniformType(ofMIME mime: String?) -> String {
        #if canImport(UniformTypeIdentifiers)
        if let mime, let type = UTType(mimeType: mime) { return type.identifier }
        #endif
        return "public.mpeg-4"
    }
}
#endif
