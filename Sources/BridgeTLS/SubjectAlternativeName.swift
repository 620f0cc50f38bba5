import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns host names and addresses into certificate subject alternative names and back.
enum SubjectAlternativeName {
    /// The 4 or 16 bytes of an IPv4 or IPv6 address (a `%zone` is dropped); nil for a host name.
    static func ipAddressBytes(_ text: String) -> [UInt8]? {
        let host = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// The text form of 4 or 16 address bytes.
    static func ipAddressText(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1 else { return nil }
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        guard ok else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `name` can be a DNS name in a certificate: letters, digits, `-`, `.`, at most 253 bytes.
    static func isDNSName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 253
            && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }
    }

    /// The names as DNS-name or IP-address entries (brackets around IPv6 dropped, DNS names lowercased, names
    /// that cannot be in a certificate dropped), first occurrence kept.
    static func generalNames(_ names: [String]) -> [GeneralName] {
        var seen = Set<String>()
        var result: [GeneralName] = []
        for raw in names {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if let bytes = ipAddressBytes(name) {
                guard seen.insert(bytes.map(String.init).joined(separator: ".")).inserted else { continue }
                result.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
            } else if isDNSName(name) {
                let lowered = name.lowercased()
                guard seen.insert(lowered).inserted else { continue }
                result.append(.dnsName(lowered))
            }
        }
        return result
    }
}
