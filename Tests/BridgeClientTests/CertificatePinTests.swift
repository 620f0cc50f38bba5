import Testing

@testable import BridgeClient

@Suite struct CertificatePinTests {
    // SHA-256 of the three bytes "abc".
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    @Test func fingerprintIsLowercaseHexOfDER() {
        #expect(CertificatePin.fingerprint(ofDER: Array("abc".utf8)) == abc)
    }

    @Test func acceptsCommonSpellings() throws {
        let colons = stride(from: 0, to: 64, by: 2).map { i in
            String(abc.uppercased()[abc.index(abc.startIndex, offsetBy: i)...].prefix(2))
        }.joined(separator: ":")
        for text in [abc, abc.uppercased(), colons, "sha256:" + abc, "SHA256=" + abc] {
            #expect(CertificatePin(fingerprint: text)?.fingerprint == abc, "\(text)")
        }
        #expect(CertificatePin(fingerprint: "abc") == nil)
        #expect(CertificatePin(fingerprint: String(repeating: "z", count: 64)) == nil)
    }

    @Test func matchAndMismatch() throws {
        let pin = try #require(CertificatePin(fingerprint: abc))
        #expect(pin.matches(certificateDER: Array("abc".utf8)))
        try pin.check(certificateDER: Array("abc".utf8))
        #expect(!pin.matches(certificateDER: Array("abd".utf8)))
        let error = #expect(throws: BridgeClientError.self) { try pin.check(certificateDER: Array("abd".utf8)) }
        #expect(error?.code == .pinMismatch)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains(abc) == true)
    }
}
