import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `codex-bridge-bench app-server`: a fake `codex app-server` fast enough not to bound the relay figures.
///
/// The turn's behaviour comes from the prompt text:
/// - `flood N`: N `item/agentMessage/delta` notifications as fast as the pipe takes them, then `turn/completed`;
/// - `paced N MICROS`: N deltas, one every MICROS µs, each with `ts` (CLOCK_MONOTONIC ns, taken just before
///   the line is written), then `turn/completed`;
/// - anything else: one delta.
enum FakeCodex {
    // Only the fake's single thread writes it (this mode runs nothing else).
    nonisolated(unsafe) static let output = fdopen(1, "w")

    static func run() -> Int32 {
        setvbuf(output, nil, _IOFBF, 1 << 16)
        var threadCount = 0
        while let line = readLine(strippingNewline: true) {
            guard let method = stringField(line, "method"), let id = rawField(line, "id") else { continue }
            switch method {
            case "initialize":
                emit(#"{"id":\#(id),"result":{"userAgent":"bench-fake","platformOs":"linux"}}"#)
            case "thread/start", "thread/resume":
                threadCount += 1
                let threadId = stringField(line, "threadId") ?? "bench-thread-\(getpid())-\(threadCount)"
                emit(#"{"id":\#(id),"result":{"thread":{"id":"\#(threadId)","cwd":"/"}}}"#)
            case "thread/list":
                emit(#"{"id":\#(id),"result":{"data":[]}}"#)
            case "turn/start":
                let threadId = stringField(line, "threadId") ?? "?"
                let turnId = "turn-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
                emit(#"{"id":\#(id),"result":{"turn":{"id":"\#(turnId)","status":"inProgress"}}}"#)
                fflush(output)
                turn(threadId: threadId, turnId: turnId, prompt: stringField(line, "text") ?? "")
            default:
                emit(#"{"id":\#(id),"error":{"code":-32601,"message":"bench fake: \#(method) not supported"}}"#)
            }
            fflush(output)
        }
        return 0
    }

    private static func turn(threadId: String, turnId: String, prompt: String) {
        let words = prompt.split(separator: " ")
        let count = words.count > 1 ? Int(words[1]) ?? 1 : 1
        let pacedMicros = words.first == "paced" && words.count > 2 ? Int(words[2]) ?? 1000 : nil
        emit(#"{"method":"turn/started","params":{"threadId":"\#(threadId)","turn":{"id":"\#(turnId)","status":"inProgress"}}}"#)
        let prefix =
            #"{"method":"item/agentMessage/delta","params":{"threadId":"\#(threadId)","turnId":"\#(turnId)","itemId":"msg-1","delta":""#
        for i in 0..<max(0, count) {
            if let pacedMicros {
                fflush(output)
                usleep(useconds_t(pacedMicros))
                emit(prefix + #"\#(i) ","ts":\#(monotonicNanos())}}"#)
                fflush(output)
            } else {
                emit(prefix + #"\#(i) "}}"#)
            }
        }
        emit(#"{"method":"turn/completed","params":{"threadId":"\#(threadId)","turn":{"id":"\#(turnId)","status":"completed"}}}"#)
        fflush(output)
    }

    private static func emit(_ line: String) {
        fputs(line, output)
        fputc(10, output)
    }

    /// The string value of the first `"key":"…"` (no escapes: enough for the bridge's requests).
    static func stringField(_ line: String, _ key: String) -> String? {
        guard let range = line.range(of: "\"\(key)\":\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The raw JSON value of `"key":` up to the next `,` or `}` (ids: numbers or strings).
    static func rawField(_ line: String, _ key: String) -> String? {
        guard let range = line.range(of: "\"\(key)\":") else { return nil }
        let rest = line[range.upperBound...]
        let end = rest.firstIndex(where: { $0 == "," || $0 == "}" }) ?? rest.endIndex
        return String(rest[..<end])
    }
}

/// CLOCK_MONOTONIC in nanoseconds: comparable across processes on this machine.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
