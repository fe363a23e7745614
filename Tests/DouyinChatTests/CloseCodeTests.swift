import DouyinChat
import Testing

/// Close codes are a public enum (issue 22 §4): registered numbers get their named case, any
/// other number survives as `.other`, and equality is by number.
@Suite("WebSocket close codes")
struct CloseCodeTests {
    @Test func everyNumberRoundTripsAndRegisteredOnesAreNamed() {
        for number in UInt16(0)...UInt16(5000) {
            #expect(WebSocketCloseCode(number).code == number)
        }
        #expect(WebSocketCloseCode(1008) == .policyViolation)
        #expect(WebSocketCloseCode(1001) == .goingAway && WebSocketCloseCode(1011) == .internalError)
        if case .other = WebSocketCloseCode(1009) { Issue.record("1009 is registered: messageTooBig") }
        guard case .other(4001) = WebSocketCloseCode(4001) else { Issue.record("4001 is an application code"); return }
    }

    @Test func equalityAndHashingAreByNumber() {
        #expect(WebSocketCloseCode.other(1008) == .policyViolation)
        #expect(Set([WebSocketCloseCode.other(1008), .policyViolation, 1008]).count == 1)
        #expect(WebSocketCloseCode.normal.description == "1000")
    }

    /// A server's 1008 ends in `gaveUp` carrying the typed code, however it was built.
    @Test func policyViolationIsMatchedByName() {
        let error = ChatError.closed(code: WebSocketCloseCode(1008), reason: "banned")
        guard case .closed(.policyViolation, "banned") = error else { Issue.record("\(error)"); return }
        // The machine compares by number: a hand-built .other(1008) is the same verdict.
        #expect(ChatConnectionMachine.isFatal(.closed(code: .other(1008), reason: "")))
        #expect(!ChatConnectionMachine.isFatal(.closed(code: .other(1011), reason: "")))
    }
}
