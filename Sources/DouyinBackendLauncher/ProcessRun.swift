import Foundation

extension Process {
    /// Starts the process and waits for its exit without blocking a thread: a harness blocked
    /// in `waitUntilExit()` holds one of the few threads every async task shares (two on a
    /// two-core machine), and a server in the same process then stops answering.
    ///
    /// - Throws: the error of `run()` when the process cannot start; an exit status is not an
    ///   error (read `terminationStatus`).
    public func runToExit() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            terminationHandler = { _ in continuation.resume() }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    /// ``runToExit()`` with stdout and stderr written to files in a scratch folder (removed
    /// after) and returned: files, not pipes, because a child that fills a pipe nobody reads
    /// yet blocks for ever.
    public func runCapturingOutput() async throws -> (stdout: Data, stderr: Data) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("douyinkit-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        standardOutput = out
        standardError = err
        try await runToExit()
        try out.close()
        try err.close()
        return (try Data(contentsOf: outURL), try Data(contentsOf: errURL))
    }
}
