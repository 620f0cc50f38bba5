import BridgeOps
import Foundation
import Synchronization

/// serve's standard input on a terminal, read by one thread for everyone (two readers of one terminal would
/// each get some of the lines): a line typed while a question waits (the y/N of a pairing or of a scope request,
/// asked one at a time through ``ask(_:)``) answers it; any other line — Enter — is an ``enters`` (the pairing QR
/// shows itself again).
///
/// Reads only while serve is the terminal's foreground job: a read from the background would stop the whole
/// process (SIGTTIN), so `serve &` must not read, nor a serve put in the background with Ctrl-Z and `bg`; it
/// looks again every second.
package final class TerminalInput: Sendable {
    /// The lines no question took, one element each (a burst is one: the card shows once).
    package let enters: AsyncStream<Void>
    private let enter: AsyncStream<Void>.Continuation
    private let state = Mutex(State())

    private struct State {
        var question: CheckedContinuation<String?, Never>?
        var closed = false
    }

    /// Who asks a question now, and who waits to (``ask(_:)``): one question on the terminal at a time.
    private let turns = Mutex(Turns())

    private struct Turns {
        var busy = false
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var next: UInt64 = 0
    }

    package init() {
        (enters, enter) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether serve can read a person's keys: its stdin and stdout are a terminal.
    package static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// A reader of this process's stdin, on a thread of its own (a read blocks; the thread ends with the input or
    /// the process).
    package static func standardInput() -> TerminalInput {
        let input = TerminalInput()
        Thread.detachNewThread { input.readStandardInput() }
        return input
    }

    /// Waits for the next line typed from now on: the answer to a question just asked. Nil when the input ended
    /// (or the task was cancelled). One question at a time. `prompt`, when given, is printed once the next line
    /// is this question's: a line typed as soon as it shows answers it (printed first, a quick answer could
    /// arrive before the question was waiting, and be taken for an Enter).
    package func answer(prompt: String? = nil) async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let refused = state.withLock { state -> Bool in
                    guard !state.closed, !Task.isCancelled, state.question == nil else { return true }
                    state.question = continuation
                    return false
                }
                if refused {
                    continuation.resume(returning: nil)
                } else if let prompt {
                    Terminal.write(prompt)
                }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.question = nil }
                return state.question
            }?.resume(returning: nil)
        }
    }

    /// Asks `question` on serve's terminal once no other question is open (they come one at a time, in the order
    /// they were asked: a pairing's, a scope request's) and waits for the line that answers it. What waits unread
    /// in the terminal was typed before the question and is dropped first (on a loaded machine the reading thread
    /// may not have read it yet, and would give it to this question). Nil when the input ended or the task was
    /// cancelled (then nothing is printed if the question was not asked yet).
    package func ask(_ question: String) async -> String? {
        guard await takeTurn() else { return nil }
        defer { endTurn() }
        guard !Task.isCancelled else { return nil }
        tcflush(STDIN_FILENO, TCIFLUSH)
        return await answer(prompt: question)
    }

    /// Waits until no other question is open; false: cancelled while waiting (the turn was not taken).
    private func takeTurn() async -> Bool {
        let id = turns.withLock { turns -> UInt64 in
            turns.next &+= 1
            return turns.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = turns.withLock { turns -> Bool? in
                    if Task.isCancelled { return false }
                    guard turns.busy else {
                        turns.busy = true
                        return true
                    }
                    turns.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            turns.withLock { turns -> CheckedContinuation<Bool, Never>? in
                guard let index = turns.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return turns.waiting.remove(at: index).continuation
            }?.resume(returning: false)
        }
    }

    private func endTurn() {
        turns.withLock { turns -> CheckedContinuation<Bool, Never>? in
            guard !turns.waiting.isEmpty else {
                turns.busy = false
                return nil
            }
            return turns.waiting.removeFirst().continuation
        }?.resume(returning: true)
    }

    /// Whether a question waits for its answer.
    var waitingForAnswer: Bool { state.withLock { $0.question != nil } }

    /// One line typed, without its newline; nil: the input ended. The question waiting takes it, else it is an
    /// Enter.
    package func received(_ line: String?) {
        let question = state.withLock { state in
            defer { state.question = nil }
            if line == nil { state.closed = true }
            return state.question
        }
        if let question {
            question.resume(returning: line)
        } else if line != nil {
            enter.yield()
        }
        if line == nil { enter.finish() }
    }

    private func readStandardInput() {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let foreground = tcgetpgrp(STDIN_FILENO)
            guard foreground != -1 else {  // no terminal any more (hung up)
                received(nil)
                return
            }
            guard foreground == getpgrp() else {
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EIO {  // put in the background between the look and the read
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            guard count > 0 else {
                received(nil)
                return
            }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                received(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
    }
}
