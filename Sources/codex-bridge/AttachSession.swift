import BridgeClient
import BridgeProtocol
import Foundation
import UnixSignals

/// The line-based terminal UI of `attach`: one loop over everything that happens (typed lines, bridge
/// messages, connection changes, Ctrl-C), so its state needs no locking.
struct AttachSession {
    enum Input: Sendable {
        case line(String)
        case endOfInput
        case message(ServerMessage)
        case status(BridgeClient.Status)
        case interrupt
    }

    let client: BridgeClient
    let approvalPolicy: String?

    var thread: String?
    var listed: [String] = []
    var approvals: [ApprovalRequest] = []
    /// The agent's questions, the first one being asked.
    var questions: [AttachQuestion] = []
    var runningTurns = Set<String>()
    var interruptRequested = false
    var streamedItems = Set<String>()
    /// The terminal.
    var output = AttachOutput()

    init(client: BridgeClient, approvalPolicy: String?) {
        self.client = client
        self.approvalPolicy = approvalPolicy
    }

    mutating func run(ack: HelloAck, paired: Bool, tokenFile: String) async {
        let name = ack.server?.name ?? "bridge"
        say("connected to \(name) (\(ack.server?.id ?? "?"))" + (ack.deviceId.map { " as device \($0)" } ?? ""))
        if paired { say("paired: the device token is stored in \(tokenFile)") }
        say("type /help for commands")
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        Self.readLines(into: input)
        let signals = await UnixSignalsSequence(trapping: .sigint)
        let client = self.client
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await message in client.events { input.yield(.message(message)) }
            }
            group.addTask {
                for await status in client.statuses { input.yield(.status(status)) }
            }
            group.addTask {
                for await _ in signals { input.yield(.interrupt) }
            }
            for await event in inputs {
                if await !handle(event) { break }
            }
            group.cancelAll()
        }
        await client.close()
    }

    /// Reads stdin on its own thread (blocking reads have no place on the cooperative pool).
    static func readLines(into input: AsyncStream<Input>.Continuation) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { input.yield(.line(line)) }
            input.yield(.endOfInput)
        }
        thread.start()
    }

    /// Handles one input; false ends the session.
    mutating func handle(_ input: Input) async -> Bool {
        switch input {
        case .line(let line): return await command(line.trimmingCharacters(in: .whitespaces))
        case .endOfInput: return false
        case .message(let message): show(message)
        case .status(let status): return show(status)
        case .interrupt: return await interrupt()
        }
        return true
    }

    mutating func list() async {
        do {
            guard case .threads(let answer) = try await client.send(BridgeRequest(.listThreads, ListThreads(limit: 20))) else { return }
            listed = answer.threads.map(\.threadId)
            if answer.threads.isEmpty { say("no threads") }
            for (index, summary) in answer.threads.enumerated() {
                let preview = (summary.preview ?? "").replacingOccurrences(of: "\n", with: " ").prefix(60)
                say("\(index + 1). \(summary.threadId)  \(summary.status ?? "-")  \(summary.cwd ?? "")  \(preview)")
            }
        } catch {
            say("error: \(error.message)")
        }
    }

    /// Sends a request; prints the line `done` makes of the answer, or the error.
    mutating func request(_ request: BridgeRequest, done: (BridgeResponse) -> String?) async {
        do {
            let answer = try await client.send(request)
            if let text = done(answer) { say(text) }
        } catch {
            say("error: \(error.message)")
        }
    }

    /// Ctrl-C: interrupt the running turn; with none running (or a second time), leave.
    mutating func interrupt(quitIfIdle: Bool = true) async -> Bool {
        guard let thread, runningTurns.contains(thread) else {
            if quitIfIdle { say("bye") }
            return !quitIfIdle
        }
        if interruptRequested, quitIfIdle {
            say("bye")
            return false
        }
        interruptRequested = true
        say("interrupting the turn (Ctrl-C again to quit)")
        await request(BridgeRequest(.interrupt, ThreadRef(threadId: thread))) { _ in nil }
        return true
    }

    /// Prints a line (ending the agent's unfinished one first).
    mutating func say(_ text: String) { output.say(text) }
}
