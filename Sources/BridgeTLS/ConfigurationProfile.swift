import Crypto
import Foundation

/// The iOS/iPadOS configuration profile (`GET /ca.mobileconfig`) that installs the workstation's CA: an XML
/// property list holding one `com.apple.security.root` payload with the CA's DER certificate and nothing else.
///
/// The profile is unsigned (iOS shows it as "Unverified"); the user checks the certificate's SHA-256 against the
/// one `serve` prints. Its identifiers derive from the CA's fingerprint, so downloading it again replaces the
/// installed profile instead of adding a second one, and a rotated CA gets a profile of its own.
public enum ConfigurationProfile {
    /// The media type iOS opens as a profile.
    public static let contentType = "application/x-apple-aspen-config"

    /// The profile's bytes (UTF-8 XML).
    /// - Parameter serverName: the workstation's name, shown as the profile's name.
    public static func make(authority: CertificateAuthority, serverName: String) -> [UInt8] {
        let fingerprint = authority.fingerprint
        let identifier = "org.codex-bridge.ca." + fingerprint.prefix(16)
        let certificate = Data(authority.certificateDER).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>codex-bridge-ca.cer</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>
            \(certificate)
            \t\t\t</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>Lets this device trust codex-bridge on \(escape(serverName)): only its own names and addresses.</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(escape(authority.commonName))</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>\(identifier).certificate</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(uuid(fingerprint, "certificate"))</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>Installs the certificate authority of codex-bridge on \(escape(serverName)). It is limited to that workstation's names and addresses. Compare its SHA-256 fingerprint with the one codex-bridge serve prints: \(fingerprint)</string>
            \t<key>PayloadDisplayName</key>
            \t<string>codex-bridge: \(escape(serverName))</string>
            \t<key>PayloadIdentifier</key>
            \t<string>\(identifier)</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(uuid(fingerprint, "profile"))</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
        return Array(text.utf8)
    }

    /// A stable UUID (version 5 layout) from the fingerprint and a label.
    static func uuid(_ fingerprint: String, _ label: String) -> String {
        var bytes = Array(SHA256.hash(data: Array((fingerprint + "/" + label).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// Text as XML character data: `&`, `<`, `>` escaped, control characters dropped (XML 1.0 forbids them).
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0xFFFE...0xFFFF).contains(scalar.value): continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
