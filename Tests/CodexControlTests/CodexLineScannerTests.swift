import BridgeProtocol
import Foundation
import Logging
import Testing

@testable import CodexControl

@Suite("CodexLineScanner: notifications without a JSONValue tree")
struct CodexLineScannerTests {
    struct Found: Equatable {
        var method: String
        var params: String
        var threadId: String?
        var turnId: String?
        var idsEscaped: Bool
        var hasThread: Bool
        var hasTurn: Bool
    }

    static func scan(_ line: String) -> Found? {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBytes { raw in
            CodexLineScanner.scanNotification(raw).map { scan in
                func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
                return Found(
                    method: text(scan.method), params: text(scan.params), threadId: scan.threadId.map(text), turnId: scan.turnId.map(text),
                    idsEscaped: scan.idsEscaped, hasThread: scan.hasThread, hasTurn: scan.hasTurn)
            }
        }
    }

    static let delta =
        #"{"method":"item/agentMessage/delta","params":{"threadId":"019a-t","turnId":"019a-u","itemId":"msg_1","delta":"Hel"}}"#

    @Test("a delta: method, params verbatim, threadId and turnId")
    func delta() {
        #expect(
            Self.scan(Self.delta)
                == Found(
                    method: "item/agentMessage/delta", params: #"{"threadId":"019a-t","turnId":"019a-u","itemId":"msg_1","delta":"Hel"}"#,
                    threadId: "019a-t", turnId: "019a-u", idsEscaped: false, hasThread: false, hasTurn: false))
    }

    @Test("escaped quotes, escapes and unicode in the params are kept as written")
    func escapesAndUnicode() {
        let params = #"{"delta":"say \"threadId\": \\ \/ \n \u00e9 é \ud83d\ude00 😀","threadId":"t","turnId":"u"}"#
        let found = Self.scan(#" { "params" : "# + params + #" , "method" : "item/reasoning/textDelta" } "#)
        #expect(found?.params == params)
        #expect(found?.threadId == "t")
        #expect(found?.turnId == "u")
        #expect(found?.method == "item/reasoning/textDelta")
    }

    @Test("a threadId inside a nested string or object is not the params' own")
    func nestedThreadId() {
        let inString = #"{"method":"m","params":{"delta":"\"threadId\":\"evil\"","threadId":"good"}}"#
        #expect(Self.scan(inString)?.threadId == "good")
        let inObject = #"{"method":"m","params":{"item":{"threadId":"inner","turnId":"x"},"threadId":"outer"}}"#
        #expect(Self.scan(inObject)?.threadId == "outer")
        #expect(Self.scan(inObject)?.turnId == nil)
        let onlyNested = #"{"method":"m","params":{"thread":{"id":"t"},"turn":{"threadId":"x"}}}"#
        #expect(Self.scan(onlyNested)?.threadId == nil)
        #expect(Self.scan(onlyNested)?.hasThread == true)
        #expect(Self.scan(onlyNested)?.hasTurn == true)
        // A top-level threadId outside params is not it either.
        #expect(Self.scan(#"{"threadId":"top","method":"m","params":{}}"#)?.threadId == nil)
    }

    @Test("missing members, escaped ids and an id that is no string")
    func missingAndOdd() {
        #expect(Self.scan(#"{"method":"m","params":{"delta":"x"}}"#)?.threadId == nil)
        #expect(Self.scan(#"{"method":"m","params":{}}"#)?.params == "{}")
        #expect(Self.scan(#"{"method":"m"}"#) == nil)  // no params: the full parser
        #expect(Self.scan(#"{"params":{"threadId":"t"}}"#) == nil)  // no method
        #expect(Self.scan(#"{"method":"m","params":[1]}"#) == nil)  // params not an object
        #expect(Self.scan(#"{"method":"m","params":{"threadId":7}}"#) == nil)  // not a string: the full parser
        #expect(Self.scan(#"{"method":"m","params":{"threadId":"t\u0031"}}"#)?.idsEscaped == true)
        #expect(Self.scan(#"{"method":"m\/x","params":{}}"#) == nil)  // escaped method: the full parser
        #expect(Self.scan(#"{"method":"m","params":{"threadId":"a","threadId":"b"}}"#) == nil)  // duplicate
        #expect(Self.scan(#"{"method":"m","method":"n","params":{}}"#) == nil)
    }

    @Test("requests and answers are left to the full parser; a null id is a notification")
    func requestsAndAnswers() {
        #expect(Self.scan(#"{"id":3,"method":"item/fileChange/requestApproval","params":{"threadId":"t"}}"#) == nil)
        #expect(Self.scan(#"{"method":"m","params":{"threadId":"t"},"id":"x"}"#) == nil)
        #expect(Self.scan(#"{"id":1,"result":{}}"#) == nil)
        #expect(Self.scan(#"{"id":null,"method":"m","params":{"threadId":"t"}}"#)?.threadId == "t")
    }

    @Test(
        "lines that are not valid JSON are refused",
        arguments: [
            #"{"method":"m","params":{"threadId":"t"}} x"#, #"{"method":"m","params":{"threadId":"t"}"#,
            #"{"method":"m","params":{"a":"\x"}}"#, #"{"method":"m","params":{"a":"\u12"}}"#, #"{"method":"m","params":{"a":"\ud800"}}"#,
            #"{"method":"m","params":{"a":"\udc00"}}"#, "{\"method\":\"m\",\"params\":{\"a\":\"tab\there\"}}",
            #"{"method":"m","params":{"a":01}}"#,
            #"{"method":"m","params":{"a":1.}}"#, #"{"method":"m","params":{"a":1e}}"#, #"{"method":"m","params":{"a":-}}"#,
            #"{"method":"m","params":{"a":tru}}"#, #"{"method":"m","params":{"a":[1,]}}"#, #"{"method":"m","params":{"a":1,}}"#,
            #"{"method":"m","params":{"a" 1}}"#, #"{"method":"m","params":{"a":"unterminated}}"#, #"{"method":"m" "params":{}}"#,
            #"{"method":"m","params":{}}}"#, #"{"method":"m","params":{"a":{"b":[}}}"#, "", "   ", "[1]", #""s""#,
            #"{"method":"m","params":{"a":"x"},}"#, #"{,"method":"m","params":{}}"#,
        ])
    func invalid(line: String) {
        #expect(Self.scan(line) == nil)
    }

    @Test("deep nesting is refused like the full parser does")
    func deepNesting() {
        let deep = #"{"method":"m","params":{"a":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}}"
        #expect(Self.scan(deep) == nil)
        let fine = #"{"method":"m","params":{"a":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}}"
        #expect(Self.scan(fine) != nil)
    }

    /// Whatever the scan accepts, the full parser accepts too and agrees on method, params, threadId, turnId.
    static func agrees(_ line: String) -> Bool {
        guard let found = scan(line) else { return true }
        guard case .object(let object)? = try? JSONValue(parsing: Data(line.utf8)),
            let params = try? JSONValue(parsing: Data(found.params.utf8))
        else { return false }
        func decoded(_ contents: String?) -> String? {
            contents.flatMap { (try? JSONValue(parsing: Data(("\"" + $0 + "\"").utf8)))?.stringValue }
        }
        return object["method"]?.stringValue == found.method && object["params"] == params
            && (object["id"] == nil || object["id"] == .null) && params["threadId"]?.stringValue == decoded(found.threadId)
            && params["turnId"]?.stringValue == decoded(found.turnId)
    }

    @Test("differential: the scan never accepts what the full parser refuses or reads differently")
    func differential() {
        let seeds = [
            Self.delta, #"{"method":"m","params":{"delta":"a\"b\\c\u00e9😀","threadId":"t","turnId":"u","n":[1,-2.5e3,true,null,{}]}}"#,
            #"{"id":null,"params":{"threadId":"t"},"method":"turn/started","emittedAtMs":1}"#,
        ]
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for seed in seeds {
            #expect(Self.agrees(seed))
            let bytes = Array(seed.utf8)
            let alphabet = Array(#"{}[]":,\ u0123456789abcdefnrt-.eE"#.utf8) + [0x09, 0x0A, 0x01, 0xC3, 0xA9]
            for _ in 0..<3000 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let at = Int.random(in: 0..<mutated.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: mutated.remove(at: at)
                    case 1: mutated.insert(alphabet.randomElement(using: &generator)!, at: at)
                    default: mutated[at] = alphabet.randomElement(using: &generator)!
                    }
                    if mutated.isEmpty { break }
                }
                let line = String(decoding: mutated, as: UTF8.self)
                if !Self.agrees(line) { Issue.record("scan and parser disagree on \(line)") }
                checked += 1
            }
        }
        #expect(checked == 9000)
    }

    @Test("the reader relays configured deltas and parses everything else fully")
    func readerChoosesThePath() {
        let server = CodexAppServer(executablePath: "/nonexistent", logger: Logger(label: "test"))
        func read(_ line: String) -> CodexInbound? {
            var items: [CodexAppServer.ReadItem] = []
            var cache = CodexAppServer.IdCache()
            Array(line.utf8).withUnsafeBytes { server.read($0, into: &items, cache: &cache) }
            guard items.count == 1, case .inbound(let inbound) = items[0] else { return nil }
            return inbound
        }
        #expect(
            read(Self.delta)
                == .relayed(
                    CodexRelayedNotification(
                        method: "item/agentMessage/delta", threadId: "019a-t", turnId: "019a-u",
                        paramsJSON: #"{"threadId":"019a-t","turnId":"019a-u","itemId":"msg_1","delta":"Hel"}"#)))
        // Escaped ids are decoded.
        #expect(
            read(#"{"method":"item/plan/delta","params":{"threadId":"t\u00e9","delta":"x"}}"#)
                == .relayed(
                    CodexRelayedNotification(
                        method: "item/plan/delta", threadId: "té", turnId: nil, paramsJSON: #"{"threadId":"t\u00e9","delta":"x"}"#)))
        // Not relayed: another method, no threadId, ids only inside `turn`.
        let started = #"{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u"}}}"#
        #expect(
            read(started)
                == .notification(
                    CodexNotification(
                        method: "turn/started", params: ["threadId": "t", "turn": ["id": "u"]],
                        paramsJSON: #"{"threadId":"t","turn":{"id":"u"}}"#)))
        if case .notification = read(#"{"method":"item/agentMessage/delta","params":{"delta":"x"}}"#) {
        } else {
            Issue.record("no threadId")
        }
        if case .notification = read(#"{"method":"item/agentMessage/delta","params":{"threadId":"t","turn":{"id":"u"}}}"#) {
        } else {
            Issue.record("turn member")
        }
        let withThread = #"{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","thread":{"cwd":"/w"}}}"#
        if case .notification = read(withThread) {
        } else {
            Issue.record("thread member")
        }
        if case .serverRequest = read(#"{"id":4,"method":"item/agentMessage/delta","params":{"threadId":"t"}}"#) {
        } else {
            Issue.record("request")
        }
        let none = CodexAppServer(executablePath: "/nonexistent", options: .init(relayedMethods: []), logger: Logger(label: "test"))
        var items: [CodexAppServer.ReadItem] = []
        var cache = CodexAppServer.IdCache()
        Array(Self.delta.utf8).withUnsafeBytes { none.read($0, into: &items, cache: &cache) }
        if items.count == 1, case .inbound(.notification(let note)) = items[0], note.kind == .itemAgentMessageDelta {
        } else {
            Issue.record("relayedMethods empty")
        }
    }

    @Test("the id cache hands out the same text for repeated ids and new text for new ones")
    func idCache() {
        var last = CodexAppServer.IdCache.Last()
        func string(_ text: String) -> String { Array(text.utf8).withUnsafeBytes { last.string($0) } }
        #expect(string("abc") == "abc")
        #expect(string("abc") == "abc")
        #expect(string("abd") == "abd")
        #expect(string("") == "")
        #expect(string("abd") == "abd")
    }
}
