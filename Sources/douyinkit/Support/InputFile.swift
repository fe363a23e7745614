import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file a verb reads (a script, a table, a response, a feed, a certificate), read whole
/// through the package's one bounded reader (``FileIO/readFile(_:maximumSize:followingSymlinks:)``);
/// when it cannot be read the error says why: `cannot read <path>: no such file`, `… it is a
/// directory, not a regular file`, `… it is a FIFO, not a regular file`, `… permission denied`
/// (Foundation's `Data(contentsOf:)` gave only "cannot read").
///
/// Only a regular file of at most ``maximumSize`` bytes is read: a FIFO with no writer would
/// hang the tool and `/dev/zero` would fill memory, so neither is ever read from.
enum InputFile {
    /// The most a file the tool reads may hold: 64 MiB (67,108,864 bytes), far above any feed,
    /// table, script or picture it is given.
    static let maximumSize = 64 << 20

    /// The bytes of the regular file at `path` (a symlink is followed: the user named it).
    static func read(_ path: String, files: FileIO = FileIO()) throws(ToolError) -> Data {
        do {
            return try files.readFile(path, maximumSize: maximumSize, followingSymlinks: true)
        } catch .system(let error) {
            throw failure(path, error.code)
        } catch {
            throw .failed("cannot read \(TerminalText.escaped(path)): \(error)")
        }
    }

    /// The text of the file at `path` as UTF-8; invalid UTF-8 names the first bad byte.
    static func text(_ path: String) throws(ToolError) -> String {
        let data = try read(path)
        guard let text = String(validatingUTF8Data: data) else {
            let offset = firstInvalidUTF8Offset(data) ?? 0
            throw .failed("\(TerminalText.escaped(path)): not UTF-8 text at byte \(offset)")
        }
        return text
    }

    /// Why a file could not be opened, in words a person acts on: the three common reasons
    /// in plain words, any other as the C library's text.
    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case ENOTDIR: "a part of the path is not a directory"
        case EISDIR: "it is a directory"
        case EACCES, EPERM: "permission denied"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    static func failure(_ path: String, _ code: Int32) -> ToolError {
        .failed("cannot read \(TerminalText.escaped(path)): \(reason(code))")
    }

    /// The byte offset of the first byte that is not part of valid UTF-8, or `nil`.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var offset = 0
        // Count bytes consumed per decoded scalar by re-encoding its length.
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

extension String {
    /// `data` as UTF-8 text, or `nil` when it is not valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard InputFile.firstInvalidUTF8Offset(data) == nil else { return nil }
        self = String(decoding: data, as: UTF8.self)
    }
}
