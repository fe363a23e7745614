import DouyinKit
import Foundation

/// `douyinkit webp-frames <file> --out <dir>`: every composited canvas frame as a PAM file.
enum WebPFramesCommand {
    /// The verb's entry in the tool's table.
    static let verb = Verb(name: "webp-frames", summary: "write every frame of an animated WebP as a PAM image", usage: usage, run: run)

    static let usage = "usage: douyinkit webp-frames <file> --out <dir>"

    static func run(_ arguments: [String]) throws {
        var options = try Options(arguments, usage: usage)
        guard let path = options.positional.first else { throw options.missing("<file>") }
        guard options.positional.count == 1 else { throw ToolError.usage(usage) }
        let out = try options.required("--out", "<dir>")
        try options.finish()
        let data = try InputFile.read(path)
        do {
            let animation = try WebPAnimation(data: data, alphaMode: .straight)
            let directory = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in animation.frames.indices {
                let frame = try animation.frame(at: index)
                let name = String(format: "frame-%03d.pam", index)
                try pam(frame).write(to: directory.appendingPathComponent(name))
            }
            print("frames=\(animation.frames.count) width=\(animation.canvasWidth) height=\(animation.canvasHeight) loop=\(animation.loopCount)")
        } catch let error as WebPError {
            throw ToolError.failed(TerminalText.escaped("\(path): \(error)"))
        } catch {
            throw ToolError.failed(TerminalText.escaped("cannot write frames to \(out): \(error.localizedDescription)"))
        }
    }

    /// A PAM image: `P7`, `TUPLTYPE RGB_ALPHA`, 8-bit, straight (not premultiplied) alpha, the
    /// canvas composited in straight alpha (equal to libwebp's `MODE_RGBA` animation output).
    static func pam(_ frame: WebPCanvasFrame) -> Data {
        precondition(frame.alphaMode == .straight, "PAM stores straight alpha")
        let header = "P7\nWIDTH \(frame.width)\nHEIGHT \(frame.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        return Data(header.utf8) + Data(frame.rgba)
    }
}
