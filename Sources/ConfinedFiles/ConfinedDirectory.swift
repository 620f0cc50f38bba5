import CLinuxShims
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A directory held open by descriptor: everything the bridge opens or lists inside a workspace is opened
/// relative to it, once, never following a link out of it, and then used through the descriptor it got (no
/// second lookup by name that content written meanwhile could redirect).
///
/// Opening uses `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (links that stay inside are followed,
/// any that leave — absolute, `..` past the top, `/proc` magic links — fail). On a kernel without `openat2`
/// the path is walked one component at a time with `O_NOFOLLOW`, refusing every link and every `..`.
/// Files are opened `O_NONBLOCK | O_NOCTTY`, so a FIFO or device put in a file's place cannot block the
/// caller; their type is then checked on the descriptor (`fstat`).
public final class ConfinedDirectory: Sendable {
    /// The absolute path the directory had when it was opened (for messages and for reporting paths).
    public let path: String
    /// The descriptor (`O_DIRECTORY`), closed when this object goes.
    let descriptor: Int32

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Opens the directory at `absolute` (an already resolved path; its last component must not be a link).
    public static func open(absolute: String) throws(ConfinedFileError) -> ConfinedDirectory {
        guard absolute.hasPrefix("/"), !absolute.utf8.contains(0) else {
            throw ConfinedFileError(.invalidPath, "\(absolute.prefix(256)) is not an absolute path")
        }
        let fd = Glibc.open(absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let number = errno
            throw number == ENOTDIR
                ? ConfinedFileError(.notDirectory, "\(absolute.prefix(256)) is not a directory")
                : ConfinedFileError.opening(absolute, errno: number)
        }
        return ConfinedDirectory(descriptor: fd, path: absolute)
    }

    /// The bytes of the regular file at `absolute` (at most `limit`; nil when it is larger or missing), for the
    /// small metadata files git keeps (`.git` gitfiles, `commondir`, `HEAD`, `info/exclude`): opened once,
    /// without following a link as its last component or its parent's, without blocking (a FIFO in its place is
    /// `notRegularFile`, not a hang).
    public static func contents(ofRegularFile absolute: String, limit: Int) throws(ConfinedFileError) -> [UInt8]? {
        guard let slash = absolute.lastIndex(of: "/") else {
            throw ConfinedFileError(.invalidPath, "\(absolute.prefix(256)) is not an absolute path")
        }
        let parent = slash == absolute.startIndex ? "/" : String(absolute[..<slash])
        let name = String(absolute[absolute.index(after: slash)...])
        do {
            let file = try open(absolute: parent).fileWithoutLinks(name)
            let bytes = try file.read(upTo: limit + 1)
            return bytes.count > limit ? nil : bytes
        } catch  where error.code == .notFound {
            return nil
        }
    }

    /// The directory `relative` below this one (empty or "." is a new descriptor of this one).
    public func directory(_ relative: String) throws(ConfinedFileError) -> ConfinedDirectory {
        let components = try ConfinedPath.normalized(relative)
        let fd = try Self.openBeneath(descriptor, components, flags: O_RDONLY | O_DIRECTORY)
        let resolved = Self.resolvedPath(of: fd)
        return ConfinedDirectory(descriptor: fd, path: resolved.isEmpty ? Self.join(path, components) : resolved)
    }

    /// The regular file `relative` below this directory, opened for reading. Anything else (a directory, a
    /// FIFO, a socket, a device) is `notRegularFile`; a link out of the directory is `outside`.
    public func file(_ relative: String) throws(ConfinedFileError) -> ConfinedFile {
        try file(relative, componentWalk: false)
    }

    /// ``file(_:)``, refusing every symbolic link on the way and every `..` (walked one component at a time with
    /// `O_NOFOLLOW`, as on kernels without `openat2`).
    public func fileWithoutLinks(_ relative: String) throws(ConfinedFileError) -> ConfinedFile {
        try file(relative, componentWalk: true)
    }

    private func file(_ relative: String, componentWalk: Bool) throws(ConfinedFileError) -> ConfinedFile {
        let components = try ConfinedPath.normalized(relative)
        guard !components.isEmpty else { throw ConfinedFileError(.notRegularFile, "\(path) is a directory") }
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        let fd =
            componentWalk
            ? try Self.openByComponents(descriptor, components, flags: flags)
            : try Self.openBeneath(descriptor, components, flags: flags)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let number = errno
            close(fd)
            throw ConfinedFileError.opening(relative, errno: number)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ConfinedFileError(.notRegularFile, "\(relative.prefix(256)) is not a regular file")
        }
        return ConfinedFile(descriptor: fd, size: Int(info.st_size), mode: info.st_mode, path: Self.resolvedPath(of: fd))
    }

    /// What `relative` is, without following a final symbolic link and without opening it.
    public func kind(of relative: String) throws(ConfinedFileError) -> ConfinedEntry.Kind {
        let (parent, name) = try split(relative)
        var info = stat()
        guard fstatat(parent.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw ConfinedFileError.opening(relative, errno: errno)
        }
        return ConfinedEntry.Kind(mode: info.st_mode)
    }

    /// Makes the directory `name` (one component) in this one with `mkdirat`, and opens it without following a
    /// link; → it, or nil when `name` exists and `reuse` is false. With `reuse`, an existing entry is taken only when
    /// it is a directory itself: a symbolic link (wherever it points), a file or anything else is `notDirectory`.
    public func makeDirectory(_ name: String, reuse: Bool, mode: mode_t = 0o755) throws(ConfinedFileError) -> ConfinedDirectory? {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.utf8.contains(0), name.utf8.count <= 255 else {
            throw ConfinedFileError(.invalidPath, "\(name.prefix(256)) is not a directory name")
        }
        if mkdirat(descriptor, name, mode) != 0 {
            let number = errno
            guard number == EEXIST else { throw ConfinedFileError.opening(Self.join(path, [name]), errno: number) }
            guard reuse else { return nil }
        }
        let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let number = errno
            let shown = Self.join(path, [name]).prefix(256)
            guard number == ELOOP || number == ENOTDIR else { throw ConfinedFileError.opening(String(shown), errno: number) }
            throw ConfinedFileError(.notDirectory, "\(shown) is not a plain directory (a symbolic link or a file)")
        }
        return ConfinedDirectory(descriptor: fd, path: Self.join(path, [name]))
    }

    /// Removes the empty directory `name` (one component) of this one, if it is one (`unlinkat`, no link followed).
    public func removeEmptyDirectory(_ name: String) {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else { return }
        _ = unlinkat(descriptor, name, AT_REMOVEDIR)
    }

    /// The target of the symbolic link `relative` (its bytes; never followed).
    public func linkTarget(_ relative: String) throws(ConfinedFileError) -> [UInt8] {
        let (parent, name) = try split(relative)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(parent.descriptor, name, &buffer, buffer.count - 1)
        guard count >= 0 else { throw ConfinedFileError.opening(relative, errno: errno) }
        return buffer.prefix(count).map { UInt8(bitPattern: $0) }
    }

    /// The entries of this directory (not `.` and `..`; names that are not valid UTF-8 are left out), each typed
    /// without following links, except that a link whose target is a directory reports `linkToDirectory`.
    public func entries() throws(ConfinedFileError) -> [ConfinedEntry] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let number = errno
            if copy >= 0 { close(copy) }
            throw ConfinedFileError.opening(path, errno: number)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var result: [ConfinedEntry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let rawName = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name != ".", name != "..", Array(name.utf8) == rawName else { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            var kind = ConfinedEntry.Kind(mode: info.st_mode)
            // Only typed: what the link's target is (a stat follows it, opens nothing); whoever opens it later
            // goes through the confinement again.
            var target = stat()
            if kind == .symbolicLink, fstatat(descriptor, name, &target, 0) == 0, (target.st_mode & S_IFMT) == S_IFDIR {
                kind = .linkToDirectory
            }
            result.append(ConfinedEntry(name: name, kind: kind))
        }
        return result
    }

    /// The parent directory of `relative` (opened confined) and its last component.
    private func split(_ relative: String) throws(ConfinedFileError) -> (ConfinedDirectory, String) {
        var components = try ConfinedPath.normalized(relative)
        guard let name = components.popLast(), name != ".." else {
            throw ConfinedFileError(.invalidPath, "\(relative.prefix(256)) does not name an entry")
        }
        let parent = try directory(components.joined(separator: "/"))
        return (parent, name)
    }

    // MARK: - Opening beneath a descriptor

    /// Whether the kernel has `openat2` (cleared the first time it answers ENOSYS).
    private static let hasOpenat2 = Atomic<Bool>(true)

    /// Opens `components` below `directory` without leaving it; returns the new descriptor (`O_CLOEXEC`).
    static func openBeneath(_ directory: Int32, _ components: [String], flags: Int32) throws(ConfinedFileError) -> Int32 {
        let relative = components.isEmpty ? "." : components.joined(separator: "/")
        let flags = flags | O_CLOEXEC | O_NOCTTY
        if hasOpenat2.load(ordering: .relaxed) {
            let fd = cb_openat2(directory, relative, UInt64(UInt32(bitPattern: flags)), 0, CB_RESOLVE_BENEATH | CB_RESOLVE_NO_MAGICLINKS)
            if fd >= 0 { return fd }
            let number = errno
            guard number == ENOSYS else { throw ConfinedFileError.opening(relative, errno: number) }
            hasOpenat2.store(false, ordering: .relaxed)
        }
        return try openByComponents(directory, components, flags: flags)
    }

    /// The fallback: each component with `O_NOFOLLOW` (intermediate ones as `CB_O_PATH | O_DIRECTORY`); no `..`.
    static func openByComponents(_ directory: Int32, _ components: [String], flags: Int32) throws(ConfinedFileError) -> Int32 {
        guard !components.contains("..") else {
            throw ConfinedFileError(.outside, "'..' is not allowed in \(components.joined(separator: "/").prefix(256))")
        }
        var current = directory
        defer { if current != directory { close(current) } }
        for component in components.dropLast() {
            let next = openat(current, component, CB_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                var number = errno
                // A link where a directory is walked through answers ENOTDIR under O_NOFOLLOW: it is a link.
                var info = stat()
                if fstatat(current, component, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFLNK { number = ELOOP }
                throw ConfinedFileError.opening(components.joined(separator: "/"), errno: number)
            }
            if current != directory { close(current) }
            current = next
        }
        let fd = openat(current, components.last ?? ".", flags | O_NOFOLLOW)
        guard fd >= 0 else { throw ConfinedFileError.opening(components.joined(separator: "/"), errno: errno) }
        return fd
    }

    /// Where a descriptor really points (`/proc/self/fd/N`), or "" when the kernel does not say.
    static func resolvedPath(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard count > 0 else { return "" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func join(_ base: String, _ components: [String]) -> String {
        components.isEmpty ? base : (base == "/" ? "/" : base + "/") + components.joined(separator: "/")
    }
}
