import DouyinSupport
import DouyinTestSupport
import Foundation
import Testing

@Suite("SHA-1")
struct SHA1Tests {
    @Test func rfc3174TestVectors() {
        // RFC 3174 §7.3: TEST1–TEST4 (TEST3 is "a" a million times, TEST4 the 64-byte pattern ×10).
        #expect(SHA1.hex(Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(SHA1.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        let pattern = Array("0123456701234567012345670123456701234567012345670123456701234567".utf8)
        #expect(SHA1.hex((0..<10).flatMap { _ in pattern }) == "dea356a2cddd90c7a7ecedc5ebb563934f460452")
        #expect(SHA1.hex([UInt8]()) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func webSocketAcceptExampleOfRFC6455() {
        let key = "dGhlIHNhbXBsZSBub25jZQ==" + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        #expect(Data(SHA1.digest(Array(key.utf8))).base64EncodedString() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func matchesPythonHashlibOnRandomInputs() async throws {
        // Lengths around every block and padding boundary, plus random ones; random bytes.
        var random = SeededRandom(seed: 0x5AA1)
        var inputs: [[UInt8]] = (0...130).map { random.bytes($0) }
        inputs += (0..<60).map { _ in random.bytes(Int.random(in: 131...5000, using: &random)) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sha1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hexInputs = inputs.map { $0.map { String(format: "%02x", $0) }.joined() }
        let inputFile = directory.appendingPathComponent("inputs.txt")
        try (hexInputs.joined(separator: "\n") + "\n").write(to: inputFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sys, hashlib\nfor line in open(sys.argv[1]):\n    print(hashlib.sha1(bytes.fromhex(line.strip())).hexdigest())", inputFile.path]
        let outputFile = directory.appendingPathComponent("out.txt")
        try Data().write(to: outputFile)
        let handle = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = handle
        try await process.runToExit()
        try handle.close()
        #expect(process.terminationStatus == 0)
        let expected = try String(contentsOf: outputFile, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(expected.count == inputs.count)
        for (index, input) in inputs.enumerated() where index < expected.count {
            #expect(SHA1.hex(input) == expected[index], "input \(index) of \(input.count) bytes, \(random)")
        }
        // Fed in pieces: the same digest.
        var sha = SHA1()
        let long = inputs.last!
        sha.update(long.prefix(7))
        sha.update(long.dropFirst(7))
        #expect(sha.finalize() == SHA1.digest(long))
    }
}
