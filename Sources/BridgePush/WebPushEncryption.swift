import Crypto
import Foundation

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188): an ephemeral
/// ECDH P-256 key, HKDF-SHA256 with the subscription's auth secret, one AES-128-GCM record.
public enum WebPushEncryption {
    /// The record size written in the header; the whole message is one record.
    public static let recordSize: UInt32 = 4096
    /// Largest plaintext that fits one record (record size − 16 tag − 1 delimiter).
    public static let maxPlaintext = Int(recordSize) - 17

    /// Encrypts `plaintext` for the subscription whose public key is `p256dh` (65 bytes, uncompressed) and auth
    /// secret `auth` (16 bytes). `serverKey` and `salt` are fresh random values unless given (test vectors).
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8],
        serverKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: [UInt8]? = nil
    ) throws(PushError) -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw PushError("too_large", "the payload is larger than \(maxPlaintext) bytes") }
        guard auth.count == 16 else { throw PushError("bad_subscription", "keys.auth must be 16 bytes") }
        let userAgentKey: P256.KeyAgreement.PublicKey
        do {
            userAgentKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        } catch {
            throw PushError("bad_subscription", "keys.p256dh must be an uncompressed P-256 point (65 bytes)")
        }
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        let serverPublic = [UInt8](serverKey.publicKey.x963Representation)
        let shared: SharedSecret
        do {
            shared = try serverKey.sharedSecretFromKeyAgreement(with: userAgentKey)
        } catch {
            throw PushError("bad_subscription", "keys.p256dh is not a usable P-256 key")
        }
        let (key, nonce) = derive(shared: shared, salt: salt, userAgentPublic: p256dh, serverPublic: serverPublic, auth: auth)
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(plaintext + [0x02], using: key, nonce: nonce)
        } catch {
            throw PushError("internal", "encryption failed: \(error)")
        }
        var header = salt
        withUnsafeBytes(of: recordSize.bigEndian) { header.append(contentsOf: $0) }
        header.append(UInt8(serverPublic.count))
        header.append(contentsOf: serverPublic)
        return header + sealed.ciphertext + sealed.tag
    }

    /// The content-encryption key and nonce (RFC 8291 §3.4, RFC 8188 §2.2).
    static func derive(shared: SharedSecret, salt: [UInt8], userAgentPublic: [UInt8], serverPublic: [UInt8], auth: [UInt8])
        -> (SymmetricKey, AES.GCM.Nonce)
    {
        let ecdh = shared.withUnsafeBytes { SymmetricKey(data: Data($0)) }
        let prkKey = HKDF<SHA256>.extract(inputKeyMaterial: ecdh, salt: auth)
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublic + serverPublic
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: prkKey, info: keyInfo, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonceKey = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let nonce = nonceKey.withUnsafeBytes { try! AES.GCM.Nonce(data: Data($0)) }  // 12 bytes: always valid
        return (cek, nonce)
    }
}
