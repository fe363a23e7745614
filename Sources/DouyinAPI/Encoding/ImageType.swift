import Foundation

/// The image formats a chat upload can hold, told apart by their first bytes (not by a file
/// name, which a picker may not give).
public enum ImageType: String, Sendable, Hashable, CaseIterable {
    /// `FF D8 FF`.
    case jpeg
    /// `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// `GIF87a` or `GIF89a`.
    case gif
    /// `RIFF` … `WEBP`.
    case webp
    /// An ISO-BMFF `ftyp` box with a HEIF brand (`heic`, `heix`, `mif1`, …).
    case heic
    /// Anything else.
    case unknown

    /// The type of `data`, from its first 12 bytes.
    public static func sniff(_ data: Data) -> ImageType {
        let head = [UInt8](data.prefix(12))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return .unknown
    }

    /// The media type a part of this type is sent with; `application/octet-stream` for unknown.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .unknown: "application/octet-stream"
        }
    }

    /// A file name extension for it (`bin` for unknown).
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .unknown: "bin"
        default: rawValue
        }
    }
}
