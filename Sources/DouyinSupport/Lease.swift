/// Holds a resource for whoever holds the lease, and gives it back when the last holder lets
/// go: an `AsyncThrowingStream` whose unfolding closure captures the lease cancels its
/// transfer or decode when the stream is dropped, without a hand-written owner class per case.
///
/// `release` runs once, in `deinit`, on whichever thread drops the last reference; it must be
/// quick and must not block on the thread the stream's producer runs on.
package final class Lease<Resource: Sendable>: Sendable {
    /// What is held.
    package let resource: Resource
    private let release: @Sendable (Resource) -> Void

    /// Holds `resource` until this lease is released, then calls `release` with it.
    package init(_ resource: Resource, release: @escaping @Sendable (Resource) -> Void) {
        self.resource = resource
        self.release = release
    }

    deinit {
        release(resource)
    }
}
