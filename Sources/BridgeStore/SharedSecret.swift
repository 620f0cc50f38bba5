import Foundation

/// The shared secret for pre-shared-token clients: 32 random bytes from the system CSPRNG, base64url,
/// stored in the state directory with mode 0600.
public struct SharedSecret: Sendable {
    public let url: URL

    public init(paths: StatePaths) {
        self.url = paths.tokenFile
    }

    /// Returns the secret, creating it on first use.
    public func loadOrCreate() throws -> String {
        if let existing = try SecretFile.read(url), !existing.isEmpty {
            return existing
        }
        return try rotate()
    }

    /// Replaces the secret with a new random one and returns it.
    @discardableResult
    public func rotate() throws -> String {
        let secret = Self.generate()
        try SecretFile.write(secret + "\n", to: url)
        return secret
    }

    /// A new random secret: `byteCount` bytes from the system CSPRNG (getrandom), base64url without padding.
    public static func generate(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }
}
