import DouyinSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("URLSessions")
struct URLSessionsTests {
    /// `make` set `urlCache = nil` on the caller's own configuration object, so the change
    /// leaked into every session the caller made from it later.
    @Test func makeLeavesTheCallersConfigurationUnchanged() {
        let configuration = URLSessionConfiguration.default
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        configuration.urlCache = cache
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let session = URLSessions.make(configuration: configuration)
        #expect(configuration.urlCache === cache)
        #expect(configuration.requestCachePolicy == .returnCacheDataElseLoad)
        #expect(session.configuration.urlCache == nil)
        #expect(session.configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        URLSessions.tearDown(session)
    }
}
