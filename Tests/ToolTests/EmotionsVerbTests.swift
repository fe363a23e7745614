import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit emotions parse")
struct EmotionsVerbTests {
    @Test func printsOneLinePerSegmentInUTF16Units() async throws {
        let result = try await Tool.run(["emotions", "parse", "😀你好[微笑][nope]\\\n[大笑"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
        text 0 4 😀你好
        emotion 4 4 weixiao
        text 8 11 [nope]\\\\\\n[大笑

        """)
    }

    @Test func readsAnotherTable() async throws {
        let result = try await Tool.run(["emotions", "parse", "[可爱]x[微笑]", "--table", Fixtures.url("api/emotions.json").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "emotion 0 4 keai\ntext 4 1 x\nemotion 5 4 weixiao\n")
    }

    @Test func emptyTextPrintsNothingAndBadUsageExitsTwo() async throws {
        let empty = try await Tool.run(["emotions", "parse", ""])
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
        #expect(try await Tool.run(["emotions", "parse"]).status == 2)
        #expect(try await Tool.run(["emotions", "frobnicate", "x"]).status == 2)
        let missing = try await Tool.run(["emotions", "parse", "x", "--table", "/nonexistent/table.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/table.json"))
    }
}
