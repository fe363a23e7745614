#if canImport(CoreGraphics)
import CoreGraphics
import Foundation

extension WebPCanvasFrame {
    /// The frame as a `CGImage` (8-bit RGBA, sRGB, alpha last: premultiplied or straight as the
    /// frame's ``alphaMode`` says); `nil` only if Core Graphics refuses the buffer. Not compiled on
    /// Linux, where Core Graphics does not exist.
    public var cgImage: CGImage? {
        guard let provider = CGDataProvider(data: Data(rgba) as CFData),
              let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        let alpha: CGImageAlphaInfo = alphaMode == .premultiplied ? .premultipliedLast : .last
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue),
            provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent
        )
    }
}
#endif
