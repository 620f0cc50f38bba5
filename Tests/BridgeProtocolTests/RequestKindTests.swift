import BridgeProtocol
import Foundation
import Testing

@Suite struct RequestKindTests {
    /// A phone app is written against BRIDGE.md alone: every request kind the bridge decodes has a heading there.
    @Test func bridgeDocumentsEveryRequestKind() throws {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("BRIDGE.md")
        let headings = try String(contentsOf: document, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("#### ") }
        for kind in RequestKind.allCases {
            #expect(headings.contains { $0.contains("`\(kind.rawValue) {") }, "BRIDGE.md has no heading for \(kind.rawValue)")
        }
    }

    @Test func anUnknownKindIsRefused() throws {
        #expect(throws: FrameDecodingError.self) { try ClientMessage.decode(Data(#"{"kind":"approveAll","id":"1"}"#.utf8)) }
    }

    /// The descriptors hold together: what acts is answered once and audited; reads are neither; the gate's
    /// payload-reading rules name the payload they read.
    @Test func descriptorsAreConsistent() {
        for kind in RequestKind.allCases {
            let descriptor = kind.descriptor
            if descriptor.exactlyOnce { #expect(descriptor.audited, "\(kind) acts but is not audited") }
            if descriptor.scope == .observe, kind != .requestScopes { #expect(!descriptor.audited && !descriptor.exactlyOnce, "\(kind)") }
            if descriptor.scope != .observe, descriptor.scope != .admin { #expect(descriptor.audited, "\(kind) changes state unaudited") }
            let reads: [GateRule: any RequestPayload.Type] = [
                .newThread: StartThread.self, .directory: ListDirectory.self, .file: ReadFile.self, .settings: UpdateThreadSettings.self,
                .approval: Approve.self, .question: AnswerInput.self,
            ]
            if let read = reads[descriptor.gate] {
                #expect(ObjectIdentifier(read) == ObjectIdentifier(descriptor.payload), "\(kind)'s gate rule reads \(read)")
            }
        }
    }

    /// A request's payload type is checked when it is made: the wrong one is a programming error, caught at once.
    @Test func aRequestCarriesItsKindsPayload() throws {
        let request = BridgeRequest(.interrupt, ThreadRef(threadId: "t"))
        #expect(request.threadId == "t" && request.kind == "interrupt" && request.payload(as: ThreadRef.self) != nil)
        #expect(BridgeRequest(.subscribe, Subscribe(threadId: "*")).threadId == nil)
        #expect(request != BridgeRequest(.readThread, ReadThread(threadId: "t")))
        let wire = try ClientMessage.request(id: "1", request).encoded()
        #expect(String(decoding: wire, as: UTF8.self).contains(#""kind":"interrupt""#))
    }
}
