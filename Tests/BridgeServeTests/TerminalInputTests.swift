import Foundation
import Testing

@testable import BridgeServe

/// One reader of serve's terminal for the y/N question and the QR's Enter (issue 46 item 4): a line answers the
/// question waiting for it, any other shows the QR again; nothing typed before a question answers it. Cost: < 0.1 s.
@Suite(.timeLimit(.minutes(1))) struct TerminalInputTests {
    @Test func aLineAnswersTheQuestionWaitingElseItIsAnEnter() async throws {
        let input = TerminalInput()
        var enters = input.enters.makeAsyncIterator()
        input.received("")
        #expect(await enters.next() != nil)
        input.received("y typed before the question")  // an Enter too, never an answer
        let asked = Task { await input.answer() }
        // The question waits before the answer is typed.
        while input.waitingForAnswer == false { await Task.yield() }
        input.received(" y ")
        #expect(await asked.value == " y ")
        #expect(await enters.next() != nil)  // the line typed before the question
        input.received("")
        #expect(await enters.next() != nil)
    }

    @Test func theEndOfInputEndsTheQuestionAndTheEnters() async throws {
        let input = TerminalInput()
        let asked = Task { await input.answer() }
        while input.waitingForAnswer == false { await Task.yield() }
        input.received(nil)
        #expect(await asked.value == nil)
        var enters = input.enters.makeAsyncIterator()
        #expect(await enters.next() == nil)
        #expect(await input.answer() == nil)  // asked after the end: at once
    }

    @Test func aCancelledQuestionTakesNoLine() async throws {
        let input = TerminalInput()
        let asked = Task { await input.answer() }
        while input.waitingForAnswer == false { await Task.yield() }
        asked.cancel()
        #expect(await asked.value == nil)
        input.received("n")
        var enters = input.enters.makeAsyncIterator()
        #expect(await enters.next() != nil)
    }
}
