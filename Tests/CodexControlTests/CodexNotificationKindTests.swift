import BridgeProtocol
import CodexControl
import Foundation
import Testing

/// Every notification the installed Codex can send has a ``CodexNotification/Kind`` (so the hub's
/// `EventDescriptor` declares what to do with it): the methods listed by the real `codex app-server
/// generate-json-schema --experimental` (ServerNotification.json), not a copy of them. About 1 s.
@Suite struct CodexNotificationKindTests {
    @Test func everyNotificationOfTheSchemaHasAKind() async throws {
        let codex = try await TestSupport.realCodex()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("codex-schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: codex)
        process.arguments = ["app-server", "generate-json-schema", "--experimental", "--out", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let schema = try JSONValue(parsing: Data(contentsOf: out.appendingPathComponent("ServerNotification.json")))
        let methods = (schema["oneOf"]?.arrayValue ?? []).flatMap { variant -> [String] in
            let method = variant["properties"]?["method"]
            return (method?["enum"]?.arrayValue ?? [method?["const"] ?? .null]).compactMap(\.stringValue)
        }
        #expect(methods.count >= 80, "the schema lists the notifications: \(methods.count)")
        let undeclared = methods.filter { CodexNotification.Kind(method: $0) == nil }
        #expect(undeclared.isEmpty, "notifications without a kind: \(undeclared)")
        // Each kind is one method, spelled as Codex spells it.
        for kind in CodexNotification.Kind.allCases { #expect(CodexNotification.Kind(method: kind.method) == kind) }
        #expect(CodexNotification.Kind(method: "thread/realtime/outputAudio/delta") == .threadRealtimeOutputAudioDelta)
        #expect(CodexNotification(method: "no/such/method", params: .null).kind == nil)
    }
}
