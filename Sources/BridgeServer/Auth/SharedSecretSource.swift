import BridgeStore
import Foundation
import Synchronization

/// The current shared secret, re-read when its file changes so `codex-bridge token rotate` in another
/// process takes effect on the next handshake.
final class SharedSecretSource: Sendable {
    private struct Cached {
        var modified: timespec
        var inode: UInt
        var secret: String
    }

    private let url: URL
    /// `url.path`, made once: every handshake `stat`s the file, and a URL's path is rebuilt on each access.
    private let path: String
    private let cache: Mutex<Cached?>

    init(url: URL) {
        self.url = url
        self.path = url.path
        self.cache = Mutex(nil)
    }

    /// The secret as of now; nil when the file is missing or unreadable.
    func current() -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let modified = info.st_mtim
        let inode = UInt(info.st_ino)
        if let cached = cache.withLock({ $0 }), cached.inode == inode, cached.modified.tv_sec == modified.tv_sec,
            cached.modified.tv_nsec == modified.tv_nsec
        {
            return cached.secret
        }
        guard let secret = try? SecretFile.read(url), !secret.isEmpty else { return nil }
        cache.withLock { $0 = Cached(modified: modified, inode: inode, secret: secret) }
        return secret
    }

    /// Whether `token` is the shared secret, compared in constant time.
    func matches(_ token: String) -> Bool {
        guard let secret = current() else { return false }
        return ConstantTime.equals(secret, token)
    }
}
