/// What the container says about one frame of an animation.
public struct WebPFrameInfo: Sendable, Hashable {
    /// The frame's number, from 0.
    public var index: Int
    /// The rectangle's left edge on the canvas, in pixels.
    public var x: Int
    /// The rectangle's top edge on the canvas, in pixels.
    public var y: Int
    /// The rectangle's width in pixels.
    public var width: Int
    /// The rectangle's height in pixels.
    public var height: Int
    /// The duration written in the file (the container stores whole milliseconds, 0 to
    /// 16,777,215).
    public var fileDuration: Duration
    /// Whether the frame is alpha-blended over the canvas (else it replaces its rectangle).
    public var blendsWithPrevious: Bool
    /// Whether its rectangle is cleared to transparent before the next frame.
    public var disposesToBackground: Bool
    /// Whether the frame's bitstream carries alpha.
    public var hasAlpha: Bool
    /// Whether the frame can be composited without any earlier frame.
    public var isKeyframe: Bool

    /// How long to show the frame: durations of 10 ms or less play as 100 ms, as browsers do,
    /// so files written with 0 do not spin.
    public var displayDuration: Duration { fileDuration <= .milliseconds(10) ? .milliseconds(100) : fileDuration }

    /// Whether the rectangle covers the whole canvas.
    func coversCanvas(width canvasWidth: Int, height canvasHeight: Int) -> Bool {
        x == 0 && y == 0 && width == canvasWidth && height == canvasHeight
    }

    /// Marks the frames that need no predecessor: the first; one that covers the canvas and
    /// replaces it (no alpha, or no blending); and one after a frame that cleared itself away
    /// while covering the canvas or being a keyframe itself.
    static func markingKeyframes(_ frames: [WebPFrameInfo], canvasWidth: Int, canvasHeight: Int) -> [WebPFrameInfo] {
        var marked = frames
        for index in marked.indices {
            let frame = marked[index]
            if index == 0 {
                marked[index].isKeyframe = true
            } else if (!frame.hasAlpha || !frame.blendsWithPrevious) && frame.coversCanvas(width: canvasWidth, height: canvasHeight) {
                marked[index].isKeyframe = true
            } else {
                let previous = marked[index - 1]
                marked[index].isKeyframe = previous.disposesToBackground
                    && (previous.coversCanvas(width: canvasWidth, height: canvasHeight) || previous.isKeyframe)
            }
        }
        return marked
    }
}
