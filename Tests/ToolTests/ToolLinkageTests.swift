import DouyinTestSupport
import Foundation
import Testing

@Suite("douyinkit linkage")
struct ToolLinkageTests {
    /// The shipped tool starts the demo backend through DouyinBackendLauncher, not through test
    /// support: no symbol of DouyinTestSupport (nginx harness, test clocks…) is linked into it.
    /// Swift's mangled names carry the module name, so one byte search over the binary finds
    /// any. Before the launcher moved out, the debug binary held the name 1,674 times.
    @Test func theToolLinksNoTestSupport() throws {
        let binary = try Data(contentsOf: Tool.productsDirectory.appendingPathComponent("douyinkit"))
        #expect(binary.range(of: Data("DouyinBackendLauncher".utf8)) != nil, "the search would find a linked module")
        #expect(binary.range(of: Data("DouyinTestSupport".utf8)) == nil)
    }
}
