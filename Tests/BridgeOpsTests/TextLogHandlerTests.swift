import Foundation
import Logging
import Testing

@testable import BridgeOps

@Suite struct TextLogHandlerTests {
    /// Regression (issue 11, finding 9): a device name with an escape sequence and a newline reached the text
    /// log as is (swift-log's StreamLogHandler writes strings raw).
    @Test func controlCharactersAreEscaped() {
        let line = TextLogHandler.line(
            date: Date(timeIntervalSince1970: 0), level: .notice, label: "codex-bridge", message: "device paired",
            source: "BridgeStore",
            metadata: ["bridge.device.name": "\u{1B}]0;pwned\u{07}phone\nFAKE error: line\u{202E}", "token": "s3cret"])
        #expect(!line.dropLast().contains("\n"))
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(line.contains(#"bridge.device.name=\u{1B}]0;pwned\u{7}phone\nFAKE error: line\u{202E}"#))
        #expect(line.contains("token=<redacted>") && !line.contains("s3cret"))
        #expect(line.hasSuffix("[BridgeStore] device paired\n"))
    }

    /// Issue 17, item 8: `bridge.close.code` was redacted as if it were a pairing code.
    @Test func onlySecretKeysAreRedacted() {
        for key in ["token", "bridge.device.token", "secret", "code", "bridge.pairing.code", "authorization"] {
            #expect(JSONLogHandler.isSecretKey(key), "\(key)")
        }
        for key in ["bridge.close.code", "bridge.error.code", "codex.exit", "bridge.codex.generation"] {
            #expect(!JSONLogHandler.isSecretKey(key), "\(key)")
        }
    }

    @Test func plainTextIsUnchanged() {
        #expect(TextLogHandler.escaped("café 🚀 ok") == "café 🚀 ok")
    }

    /// The kept second's text is the formatted one, and a new second is formatted anew.
    @Test func timestampsAreTheFormattedSecond() {
        let dates = [1_764_620_000.0, 1_764_620_000.25, 1_764_620_000.999, 1_764_620_001.0, 1_764_620_000.5, 0.0].map {
            Date(timeIntervalSince1970: $0)
        }
        for date in dates { #expect(TextLogHandler.timestamp(date) == TextLogHandler.formatted(date)) }
        #expect(TextLogHandler.timestamp(dates[0]) == TextLogHandler.timestamp(dates[2]))
        #expect(TextLogHandler.timestamp(dates[2]) != TextLogHandler.timestamp(dates[3]))
    }
}
