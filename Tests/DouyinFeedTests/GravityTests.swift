import DouyinFeed
import DouyinModels
import Testing

@Suite("Video gravity")
struct GravityTests {
    @Test func fillWhenTheVideoIsAtLeastAsWideAsTheView() {
        // 9:16 video in a 9:19.5 phone: the video is relatively wider → fill (crop the sides).
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1280), viewSize: Size(width: 375, height: 812)) == .aspectFill)
        // Exactly the same ratio → fill.
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1280), viewSize: Size(width: 360, height: 640)) == .aspectFill)
    }

    @Test func fitWhenTheVideoIsNarrowerThanTheView() {
        // 9:16 video on a landscape iPad: fit, bars at the sides.
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1280), viewSize: Size(width: 1024, height: 768)) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1280), viewSize: Size(width: 400, height: 600)) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1600), viewSize: Size(width: 375, height: 667)) == .aspectFit)
    }

    @Test func quarterTurnSwapsWidthAndHeight() {
        // Stored 1280×720 with a 90° preferred transform: shown 720×1280 in a 375×812 view.
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 1280, height: 720), transform: .rotated90, viewSize: Size(width: 375, height: 667)) == .aspectFill)
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 1600, height: 720), transform: .rotated90, viewSize: Size(width: 375, height: 667)) == .aspectFit)
        // Without the transform the same file would be landscape and fill.
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 1600, height: 720), viewSize: Size(width: 375, height: 667)) == .aspectFill)
    }

    @Test func degenerateSizesFit() {
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 0, height: 720), viewSize: Size(width: 375, height: 667)) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: 720, height: 1280), viewSize: Size(width: 0, height: 0)) == .aspectFit)
        #expect(FeedPolicy.videoGravity(naturalSize: Size(width: .nan, height: 1280), viewSize: Size(width: 375, height: 667)) == .aspectFit)
    }
}
