import DouyinSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file a verb reads (a script, a table, a response, a feed), read whole; when it cannot be
/// read the error says why: `cannot read <path>: no such file`, `… is a directory`,
/// `… permission denied` (Foundation's `Data(contentsOf:)` gave only "cannot read").
enum InputFile {
    /// The bytes of the file at `path` (a symlink is followed: the user named it). A directory
    /// is refused; a FIFO or device is read to its end.
    static func read(_ path: String, files: FileIO = FileIO()) throws(ToolError) -> Data {
        let descriptor: Int32
        do {
            descriptor = try files.open(path, flags: O_RDONLY | O_CLOEXEC)
        } catch {
            throw failure(path, error.code)
        }
        defer { files.close(descriptor) }
        let info: stat
        do { info = try files.status(descriptor) } catch { throw failure(path, error.code) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw failure(path, EISDIR)
        case S_IFREG:
            do {
                return try files.read(Int(info.st_size), from: descriptor, at: 0)
            } catch {
                throw failure(path, error.code)
            }
        default:
            // A pipe such as /dev/stdin has no size: read what it gives until it ends.
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            do { return try handle.readToEnd() ?? Data() } catch { throw failure(path, EIO) }
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
