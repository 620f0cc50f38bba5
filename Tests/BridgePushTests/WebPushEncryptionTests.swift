import BridgeStore
import Crypto
import Foundation
import Testing

@testable import BridgePush

/// RFC 8291 §5's example, and round trips through an independent decryption written here from RFC 8188.
@Suite struct WebPushEncryptionTests {
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let serverPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let userAgentPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let userAgentPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let expected =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) -> [UInt8] { [UInt8](Base64URL.decode(text)!) }

    @Test func rfc8291Example() throws {
        let serverKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.serverPrivate))
        let body = try WebPushEncryption.encrypt(
            Self.plaintext, p256dh: Self.bytes(Self.userAgentPublic), auth: Self.bytes(Self.authSecret), serverKey: serverKey,
            salt: Self.bytes(Self.salt))
        #expect(Base64URL.encode(body) == Self.expected)
    }

    @Test func decryptsWithTheReceiverKey() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let message = Array(#"{"type":"approval","title":"Approval needed"}"#.utf8)
        let body = try WebPushEncryption.encrypt(message, p256dh: [UInt8](receiver.publicKey.x963Representation), auth: auth)
        #expect(try Self.decrypt(body, receiver: receiver, auth: auth) == message)
        // A wrong auth secret does not open it.
        var wrong = auth
        wrong[0] ^= 1
        #expect(throws: (any Error).self) { try Self.decrypt(body, receiver: receiver, auth: wrong) }
    }

    @Test func refusesBadKeysAndOversizePayloads() {
        #expect(throws: PushError.self) {
            try WebPushEncryption.encrypt([1], p256dh: [UInt8](repeating: 4, count: 65), auth: [UInt8](repeating: 0, count: 16))
        }
        let receiver = P256.KeyAgreement.PrivateKey()
        #expect(throws: PushError.self) {
            try WebPushEncryption.encrypt(
                [UInt8](repeating: 0, count: 5000), p256dh: [UInt8](receiver.publicKey.x963Representation),
                auth: [UInt8](repeating: 0, count: 16))
        }
    }

    /// RFC 8188 / 8291 decryption, as a receiving browser does it.
    static func decrypt(_ body: [UInt8], receiver: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        let salt = Array(body[0..<16])
        let idLength = Int(body[20])
        let senderPublic = Array(body[21..<(21 + idLength)])
        let record = Array(body[(21 + idLength)...])
        let shared = try receiver.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let ecdh = shared.withUnsafeBytes { SymmetricKey(data: Data($0)) }
        let prkKey = HKDF<SHA256>.extract(inputKeyMaterial: ecdh, salt: auth)
        let info = Array("WebPush: info".utf8) + [0] + [UInt8](receiver.publicKey.x963Representation) + senderPublic
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: prkKey, info: info, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let key = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }), ciphertext: record.dropLast(16), tag: record.suffix(16))
        var plain = [UInt8](try AES.GCM.open(box, using: key))
        while plain.last == 0 { plain.removeLast() }
        #expect(plain.last == 2)
        return Array(plain.dropLast())
    }
}
