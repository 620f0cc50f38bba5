import Foundation

/// One git run as the bridge makes it: the command as the arguments, the exact environment (the overrides in it)
/// and the directory. Built only by ``make(_:in:trust:user:config:directory:)``, the one way the bridge runs git
/// (SECURITY.md, "Hostile repositories").
///
/// git runs as the bridge's user, outside Codex's sandbox, in a repository the agent can write to. git offers no
/// way not to read a repository's configuration, so every key that could make git run a program is overridden,
/// through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`: command-line scope, which beats every
/// configuration file, and which takes any key whole (`-c` splits at the first `=`, so `-c filter.a=b.clean=`
/// would never reach the driver `a=b`). The environment is built whole, so no `GIT_CONFIG_PARAMETERS` (which git
/// reads after them) comes in. The other variables used here (`GIT_SSH_COMMAND`, `GIT_PROXY_COMMAND`,
/// `GIT_ALLOW_PROTOCOL`) beat any configuration. What cannot be overridden safely is refused with
/// `unsafe_repository` (``refusal(trust:config:)``, and ``GitCheckout``).
struct GitInvocation: Sendable, Hashable {
    /// How much of the user's own (trusted) setup a run may use.
    enum Trust: Sendable, Hashable {
        /// No global or system configuration at all: output that must not depend on the user's settings (getDiff).
        case repositoryOnly
        /// The user's global configuration too (identity, global excludes): status, commit, branch, switch.
        case user
        /// A push: also the user's credential helpers, ssh command, askpass, `PATH` and agent sockets, and the
        /// transports `file`, `https`, `ssh` and `git` (never `ext::` or another helper).
        case push
    }

    var arguments: [String]
    var environment: [String: String]
    var workingDirectory: String

    /// Transports a push may use; everything else (`ext::`, `fd::`, any `git-remote-<name>` helper) is refused.
    static let pushProtocols = ["file", "https", "ssh", "git"]

    /// The fixed overrides: every key here could run a program, or make a run write or reach the network.
    static let fixedOverrides: [(key: String, value: String)] = [
        ("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"), ("core.editor", "false"),
        ("sequence.editor", "false"), ("core.sshCommand", "false"), ("core.alternateRefsCommand", ""), ("core.bare", "false"),
        ("core.untrackedCache", "false"), ("diff.external", ""), ("credential.helper", ""), ("commit.gpgSign", "false"),
        ("tag.gpgSign", "false"), ("push.gpgSign", "false"), ("gpg.program", "false"), ("gpg.openpgp.program", "false"),
        ("gpg.x509.program", "false"), ("gpg.ssh.program", "false"), ("gpg.ssh.defaultKeyCommand", "false"), ("gc.auto", "0"),
        ("maintenance.auto", "false"), ("submodule.recurse", "false"), ("push.recurseSubmodules", "no"),
        ("fetch.recurseSubmodules", "false"), ("protocol.allow", "never"),
    ]

    /// `command` (e.g. `["status", "--porcelain=v2"]`) run in `tree`'s directory (or `directory`).
    /// - Parameters:
    ///   - config: what the configuration files say (``GitConfigSnapshot``), read with the same trust; its filter
    ///     drivers and named transports are neutralised too. nil only for reading the configuration itself.
    static func make(
        _ command: [String], in tree: GitWorkTree, trust: Trust, user: GitUserEnvironment, config: GitConfigSnapshot?,
        directory: String? = nil
    ) -> GitInvocation {
        var environment = environment(tree: tree, trust: trust, user: user, config: config)
        environment.merge(overrideEnvironment(trust: trust, config: config)) { $1 }
        return GitInvocation(arguments: command, environment: environment, workingDirectory: directory ?? tree.directory)
    }

    /// The overrides as environment variables (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`), which
    /// git, and every git a helper program (`gh`) starts, reads as command-line configuration.
    static func overrideEnvironment(trust: Trust, config: GitConfigSnapshot?) -> [String: String] {
        let pairs = overrides(trust: trust, config: config)
        var environment = ["GIT_CONFIG_COUNT": String(pairs.count)]
        for (index, pair) in pairs.enumerated() {
            environment["GIT_CONFIG_KEY_\(index)"] = pair.key
            environment["GIT_CONFIG_VALUE_\(index)"] = pair.value
        }
        return environment
    }

    /// Why the overrides cannot be given to git for `config` (nil: they can): a key or value git cannot take
    /// through the environment (a NUL, a line break in a key). No configuration file can hold one today; the
    /// check keeps it that way for whatever git learns to read.
    static func refusal(trust: Trust, config: GitConfigSnapshot?) -> String? {
        for (key, value) in overrides(trust: trust, config: config)
        where key.utf8.contains(0) || value.utf8.contains(0) || key.contains(where: \.isNewline) {
            return "the repository configures \(String(key.prefix(200)).debugDescription), which the bridge cannot override"
        }
        return nil
    }

    /// Every override, in order (later ones win).
    static func overrides(trust: Trust, config: GitConfigSnapshot?) -> [(key: String, value: String)] {
        var overrides = fixedOverrides
        overrides.append(("core.askPass", trust == .push ? config?.globalValue("core.askPass") ?? "" : ""))
        for driver in (config?.filterDrivers ?? []).sorted() {
            // git runs no filter whose command is empty, and a driver no longer required cannot fail a run.
            for key in ["clean", "smudge", "process"] { overrides.append(("filter.\(driver).\(key)", "")) }
            overrides.append(("filter.\(driver).required", "false"))
        }
        let allowed = trust == .push ? Set(pushProtocols) : []
        for name in (config?.protocolNames ?? []).sorted() where !allowed.contains(name.lowercased()) {
            overrides.append(("protocol.\(name).allow", "never"))
        }
        if trust == .push {
            for name in pushProtocols { overrides.append(("protocol.\(name).allow", "always")) }
            // After the reset above (`credential.helper=` empties the list, URL-scoped helpers included): the
            // user's own credential settings, in their order.
            for entry in config?.globalEntries ?? [] where entry.key.lowercased().hasPrefix("credential.") {
                overrides.append((entry.key, entry.value ?? "true"))
            }
        }
        return overrides
    }

    /// The whole environment git gets (nothing else is inherited).
    static func environment(tree: GitWorkTree, trust: Trust, user: GitUserEnvironment, config: GitConfigSnapshot?) -> [String: String] {
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_ATTR_NOSYSTEM": "1", "GIT_DIR": tree.gitPath, "GIT_COMMON_DIR": tree.commonDirectory,
            "GIT_WORK_TREE": tree.top,
            "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat",
            "GIT_NO_REPLACE_OBJECTS": "1", "GIT_EDITOR": "false", "GIT_SEQUENCE_EDITOR": "false", "GIT_LITERAL_PATHSPECS": "1",
            // A set (even empty) GIT_PROXY_COMMAND makes git ignore core.gitProxy; an allow-list beats protocol.* keys.
            "GIT_PROXY_COMMAND": "", "GIT_ALLOW_PROTOCOL": "none", "GIT_SSH_COMMAND": "false",
        ]
        switch trust {
        case .repositoryOnly:
            environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        case .user, .push:
            if let home = user.home { environment["HOME"] = home }
            if let global = user.configGlobal {
                environment["GIT_CONFIG_GLOBAL"] = global
            } else if user.home == nil {
                environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
            }
            if let xdg = user.xdgConfigHome { environment["XDG_CONFIG_HOME"] = xdg }
            for (key, value) in user.identity { environment[key] = value }
        }
        guard trust == .push else { return environment }
        environment["PATH"] = user.path
        for (key, value) in user.passthrough { environment[key] = value }
        environment["GIT_ALLOW_PROTOCOL"] = pushProtocols.joined(separator: ":")
        environment["GIT_PROXY_COMMAND"] = user.gitProxyCommand ?? ""
        environment["GIT_SSH_COMMAND"] =
            user.sshCommand ?? config?.globalValue("core.sshCommand") ?? user.sshProgram.map(shellQuoted) ?? "ssh"
        return environment
    }

    /// `text` as one word for `sh`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// The bridge's own environment (the user's, trusted), as far as a git run may use it: where the global
/// configuration lives and the identity git gives commits (what git at the desk honours), and for a push the
/// `PATH`, agent sockets, proxies and ssh settings the user gave git.
struct GitUserEnvironment: Sendable, Hashable {
    /// `$HOME` (absolute), for `~/.gitconfig`, global excludes and ssh's own files.
    var home: String?
    var xdgConfigHome: String?
    /// `GIT_CONFIG_GLOBAL` (absolute: a relative one would name a file of the repository's): the user's global
    /// configuration file instead of `~/.gitconfig`.
    var configGlobal: String?
    /// The identity variables git gives commits (``identityKeys``), as the user set them.
    var identity: [String: String]
    /// `PATH`'s absolute entries (a relative entry would name the repository's own files).
    var path: String
    /// `GIT_SSH_COMMAND`, else `GIT_SSH` (a program) as the user set them.
    var sshCommand: String?
    var sshProgram: String?
    var gitProxyCommand: String?
    /// Variables a push passes on as they are: agents, askpass, proxies, TLS roots, the user's name.
    var passthrough: [String: String]

    static let passthroughKeys = [
        "SSH_AUTH_SOCK", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "USER", "LOGNAME",
        "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "SSL_CERT_FILE",
        "SSL_CERT_DIR", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "TMPDIR", "GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "GH_CONFIG_DIR",
    ]

    /// What git takes a commit's author and committer from before the configuration (`EMAIL` after it).
    static let identityKeys = ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"]

    init(_ environment: [String: String]) {
        home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        xdgConfigHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        configGlobal = environment["GIT_CONFIG_GLOBAL"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        var identity: [String: String] = [:]
        for key in Self.identityKeys { if let value = environment[key] { identity[key] = value } }
        self.identity = identity
        let entries = (environment["PATH"] ?? "").split(separator: ":").filter { $0.hasPrefix("/") }
        path = entries.isEmpty ? "/usr/bin:/bin" : entries.joined(separator: ":")
        sshCommand = environment["GIT_SSH_COMMAND"].flatMap { $0.isEmpty ? nil : $0 }
        sshProgram = environment["GIT_SSH"].flatMap { $0.isEmpty ? nil : $0 }
        gitProxyCommand = environment["GIT_PROXY_COMMAND"]
        var passthrough: [String: String] = [:]
        for key in Self.passthroughKeys { if let value = environment[key] { passthrough[key] = value } }
        self.passthrough = passthrough
    }
}

extension GitConfigSnapshot {
    /// The user's global value of a single-valued key (the last), ignoring what the repository says.
    func globalValue(_ key: String) -> String? {
        let wanted = key.lowercased()
        return globalEntries.last { $0.key.lowercased() == wanted }.map { $0.value ?? "true" }
    }
}
