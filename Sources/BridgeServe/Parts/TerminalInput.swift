import Foundation
import Synchronization

/// serve's standard input on a terminal, read by one thread for everyone (two readers of one terminal would
/// each get some of the lines): a line typed while a question waits (the y/N of a pairing) answers it; any
/// other line — Enter — is an ``enters`` (the pairing QR shows itself again).
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
    /// (or the task was cancelled). One question at a time.
    package func answer() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let refused = state.withLock { state -> Bool in
                    guard !state.closed, !Task.isCancelled, state.question == nil else { return true }
                    state.question = continuation
                    return false
                }
                if refused { continuation.resume(returning: nil) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.question = nil }
                return state.question
            }?.resume(returning: nil)
        }
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
