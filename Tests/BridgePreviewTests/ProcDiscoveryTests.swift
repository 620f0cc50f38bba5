import Testing

@testable import BridgePreview

/// The /proc parsing and the rule that picks a thread's servers, on text captured from a real machine.
@Suite struct ProcDiscoveryTests {
    static let tcp = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4001 1 0000000000000000 100 0 0 10 0
           1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4002 1 0000000000000000 100 0 0 10 0
           2: 0501A8C0:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4003 1 0000000000000000 100 0 0 10 0
           3: 0100007F:1435 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 4004 1 0000000000000000 20 4 30 10 -1
           4: 0200007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4005 1 0000000000000000 100 0 0 10 0
           5: garbage
        """
    static let tcp6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000000000000000000001000000:1435 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5001 1 0000000000000000 100 0 0 10 0
           1: 00000000000000000000000000000000:0BB9 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5002 1 0000000000000000 100 0 0 10 0
           2: 0000000000000000FFFF00000100007F:0BBA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5003 1 0000000000000000 100 0 0 10 0
           3: 80FE0000000000000000000001000000:0BBB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5004 1 0000000000000000 100 0 0 10 0
        """

    @Test func keepsListeningSocketsLoopbackReaches() {
        let v4 = ProcNetTable.listeningSockets(in: Self.tcp, ipv6: false)
        #expect(
            v4 == [
                ListeningSocket(port: 5173, connectHost: "127.0.0.1", inode: 4001, uid: 1000),
                ListeningSocket(port: 8080, connectHost: "127.0.0.1", inode: 4002, uid: 1000),  // 0.0.0.0
                // 192.168.1.5:3000 is not on loopback; the established connection (st 01) is not listening.
                ListeningSocket(port: 80, connectHost: "127.0.0.2", inode: 4005, uid: 0),
            ])
        let v6 = ProcNetTable.listeningSockets(in: Self.tcp6, ipv6: true)
        #expect(
            v6 == [
                ListeningSocket(port: 5173, connectHost: "::1", inode: 5001, uid: 1000),
                ListeningSocket(port: 3001, connectHost: "::1", inode: 5002, uid: 1000),  // ::
                ListeningSocket(port: 3002, connectHost: "127.0.0.1", inode: 5003, uid: 1000),  // ::ffff:127.0.0.1
                // fe80::1 is not loopback.
            ])
    }

    @Test func socketLinksAndDirectories() {
        #expect(ProcessFacts.socketInode(link: "socket:[4001]") == 4001)
        #expect(ProcessFacts.socketInode(link: "pipe:[4001]") == nil)
        #expect(ProcessFacts.socketInode(link: "/home/ana/socket:[1]") == nil)
        #expect(ProcessFacts.isInside("/home/ana/app", directory: "/home/ana/app"))
        #expect(ProcessFacts.isInside("/home/ana/app/web", directory: "/home/ana/app"))
        #expect(!ProcessFacts.isInside("/home/ana/app2", directory: "/home/ana/app"))
        #expect(!ProcessFacts.isInside("/home/ana", directory: "/home/ana/app"))
        #expect(!ProcessFacts.isInside("relative", directory: "/home/ana/app"))
    }

    @Test func offersOnlyThisUsersSocketsOfProcessesInTheDirectory() {
        let sockets =
            ProcNetTable.listeningSockets(in: Self.tcp, ipv6: false) + ProcNetTable.listeningSockets(in: Self.tcp6, ipv6: true)
        let owners = [
            ProcessFacts(pid: 10, cwd: "/work/app/web", name: "node", socketInodes: [4001, 5001]),  // vite on 127.0.0.1 and ::1
            ProcessFacts(pid: 11, cwd: "/work/other", name: "python3", socketInodes: [4002]),  // outside the thread
            ProcessFacts(pid: 12, cwd: "/work/app", name: "root-server", socketInodes: [4005]),  // another user's socket
            ProcessFacts(pid: 13, cwd: "/work/app", name: "bridge-port", socketInodes: [5002]),
            ProcessFacts(pid: 14, cwd: "/work/app", name: "mapped", socketInodes: [5003]),
        ]
        let found = ServerMatch.servers(sockets: sockets, owners: owners, directory: "/work/app", uid: 1000, excludedPorts: [3001])
        #expect(
            found == [
                FoundServer(
                    port: 3002, connectHost: "127.0.0.1", process: "mapped", owner: ServerOwner(pid: 14, startTime: 0), sockets: [5003]),
                FoundServer(
                    port: 5173, connectHost: "127.0.0.1", process: "node", owner: ServerOwner(pid: 10, startTime: 0), sockets: [4001, 5001]),
            ])
    }

    @Test func aProcessStartTimeIsReadAfterItsName() {
        let stat = "4242 (node (vite) x) S 1 4242 4242 0 -1 4194560 1200 0 0 0 15 3 0 0 20 0 11 0 987654 1234567 890"
        #expect(ProcessFacts.startTime(stat: stat) == 987_654)
        #expect(ProcessFacts.startTime(stat: "4242 (node) S 1 2") == nil)
        #expect(ProcessFacts.startTime(stat: "garbage") == nil)
    }

    /// Issue 44 item 4: the process a preview was opened for, checked again at each new connection.
    @Test func aPreviewIsServedOnlyWhileItsProcessStillListensFromTheDirectory() {
        let owner = ServerOwner(pid: 10, startTime: 500)
        let node = ProcessFacts(pid: 10, cwd: "/work/app/web", name: "node", socketInodes: [4001, 7], startTime: 500)
        func serves(_ process: ProcessFacts?) -> Bool {
            ServerMatch.serves(owner, sockets: [4001, 5001], process: process, directory: "/work/app")
        }
        #expect(serves(node))
        // Gone; the pid reused by a later process; the socket closed (another may listen on the port now); moved
        // out of the directory.
        #expect(!serves(nil))
        var later = node
        later.startTime = 501
        #expect(!serves(later))
        var closed = node
        closed.socketInodes = [7]
        #expect(!serves(closed))
        var moved = node
        moved.cwd = "/work/other"
        #expect(!serves(moved))
    }

    /// Issue 44 item 4: a folder that is / or a home (or holds one) owns no server started in it.
    @Test func homesAndWhatHoldsThemAreTooBroad() {
        let broad = BroadDirectories(homes: ["/home/ana/", "/root", "/var/www"])
        for directory in ["/", "/home", "/home/ana", "/home/ana/", "/root", "/var", "/var/www"] {
            #expect(broad.isBroad(directory), "\(directory)")
        }
        for directory in ["/home/ana/app", "/home/anabel", "/var/www/site", "/srv/app", "/rootless"] {
            #expect(!broad.isBroad(directory), "\(directory)")
        }
        let finder = PreviewFinder(broad: broad)
        #expect(throws: PreviewError.self) { try finder.check("/home/ana") }
        #expect(throws: Never.self) { try finder.check("/home/ana/app") }
    }
}
