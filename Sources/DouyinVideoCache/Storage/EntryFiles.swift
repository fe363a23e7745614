/// The names of an entry's files in the cache directory, all derived from its key (the md5 hex
/// of the cache key): nothing read from disk ever chooses a path, so no index, however edited,
/// can point outside the directory.
enum EntryFiles {
    /// The extensions a data file may carry. AVFoundation picks how to play a file from disk by
    /// its extension, so the URL's is kept when it is one of these; anything else is `data`.
    static let extensions: Set<String> = ["mp4", "m4v", "mov", "webm", "ts", "mkv", "m4a", "mp3", "aac", "3gp", "flv", "data"]

    /// Whether `name` is a key: 32 lowercase hex digits.
    static func isKey(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The data file name for `key` when made for `url`: the key plus the URL's extension if it
    /// is whitelisted, else `.data`.
    static func dataFileName(key: String, pathExtension: String) -> String {
        let lowered = pathExtension.lowercased()
        return key + "." + (extensions.contains(lowered) ? lowered : "data")
    }

    /// Whether `name` is a data file name of `key`: the key, a dot, a whitelisted extension.
    static func isDataFileName(_ name: String, of key: String) -> Bool {
        guard isKey(key), name.hasPrefix(key + ".") else { return false }
        return extensions.contains(String(name.dropFirst(key.count + 1)))
    }

    /// The index file name of `key`.
    static func metadataName(of key: String) -> String {
        key + ".meta"
    }
}
