import DouyinFeed
import Testing

@Suite("Video gravity")
struct GravityTests {
    @Test func fillWhenTheVideoIsAtLeastAsWideAsTheView() {
        // 9:16 video in a 9:19.5 phone: the video is relatively wider → fill (crop the sides).
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1280, viewWidth: 375, viewHeight: 812) == .aspectFill)
        // Exactly the same ratio → fill.
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1280, viewWidth: 360, viewHeight: 640) == .aspectFill)
    }

    @Test func fitWhenTheVideoIsNarrowerThanTheView() {
        // 9:16 video on a landscape iPad: fit, bars at the sides.
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1280, viewWidth: 1024, viewHeight: 768) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1280, viewWidth: 400, viewHeight: 600) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1600, viewWidth: 375, viewHeight: 667) == .aspectFit)
    }

    @Test func quarterTurnSwapsWidthAndHeight() {
        // Stored 1280×720 with a 90° preferred transform: shown 720×1280 in a 375×812 view.
        #expect(FeedPolicy.videoGravity(naturalWidth: 1280, naturalHeight: 720, transform: .rotated90, viewWidth: 375, viewHeight: 667) == .aspectFill)
        #expect(FeedPolicy.videoGravity(naturalWidth: 1600, naturalHeight: 720, transform: .rotated90, viewWidth: 375, viewHeight: 667) == .aspectFit)
        // Without the transform the same file would be landscape and fill.
        #expect(FeedPolicy.videoGravity(naturalWidth: 1600, naturalHeight: 720, viewWidth: 375, viewHeight: 667) == .aspectFill)
    }

    @Test func degenerateSizesFit() {
        #expect(FeedPolicy.videoGravity(naturalWidth: 0, naturalHeight: 720, viewWidth: 375, viewHeight: 667) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalWidth: 720, naturalHeight: 1280, viewWidth: 0, viewHeight: 0) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalWidth: .nan, naturalHeight: 1280, viewWidth: 375, viewHeight: 667) == .aspectFit)
    }
}
