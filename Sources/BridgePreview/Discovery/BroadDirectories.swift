import Foundation

/// The directories too broad to own the servers started in them: `/`, and every directory that is a home
/// directory or holds one (`/home`, `/home/ana`, `/root`, `/var/www` of www-data…). A process's cwd says where it
/// was started, not whose it is: a thread whose folder is `~` would own every server the user ever started from a
/// terminal. A thread in a project below a home (`~/app`) is not broad.
public struct BroadDirectories: Sendable {
    /// The home directories, resolved.
    public var homes: [String]

    public init(homes: [String]) {
        self.homes = homes.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    /// This machine's: every account's home (the password database), and `$HOME`, each as given and with its
    /// symbolic links resolved.
    public static let system = BroadDirectories(
        homes: (accountHomes() + [ProcessInfo.processInfo.environment["HOME"]].compactMap { $0 }).filter { $0.hasPrefix("/") }.flatMap {
            [$0, URL(fileURLWithPath: $0).resolvingSymlinksInPath().path]
        })

    /// Whether `directory` (resolved) is `/`, a home directory, or holds one.
    public func isBroad(_ directory: String) -> Bool {
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard directory != "/" else { return true }
        return homes.contains { $0 == directory || $0.hasPrefix(directory + "/") }
    }

    /// Every account's home directory; read once (`getpwent` is not thread-safe).
    private static func accountHomes() -> [String] {
        var homes: [String] = []
        setpwent()
        while let entry = getpwent() {
            if let directory = entry.pointee.pw_dir { homes.append(String(cString: directory)) }
        }
        endpwent()
        return homes
    }
}
