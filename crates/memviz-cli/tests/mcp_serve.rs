//! `memviz mcp` and `memviz serve` from the outside: an MCP session over
//! stdio answers with what `--json` prints, and the local server hands out
//! the viewer and the files byte for byte, to loopback names only. (The
//! served page drawing in a browser: tests/python/e2e.mjs.)

mod common;

use common::{json, snapshot};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_mcp_session_lists_the_tools_and_answers_what_json_prints() {
    let file = snapshot("oom_pickle_named_json.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_memviz"))
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let _guard = Killed(child);
    let mut ask = |msg: Value| -> Option<Value> {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        // A notification has no id and no answer.
        msg.get("id")?;
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(v["id"], msg["id"], "{v}");
        Some(v)
    };
    let init = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}))
    .unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "memviz");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    assert!(ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).is_none());

    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).unwrap();
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["summary", "top", "oom", "leaks", "findings", "whatif", "diff"]);
    let diff = &list["result"]["tools"][6]["inputSchema"];
    assert_eq!(diff["required"], json!(["a", "b"]));

    let mut id = 3;
    let mut call = |name: &str, args: Value| -> Value {
        id += 1;
        let r = ask(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}),
        )
        .unwrap();
        let res = &r["result"];
        assert_eq!(res["isError"], false, "{name}: {r}");
        // The text and the structured content are the same JSON.
        let text: Value = serde_json::from_str(res["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, res["structuredContent"]);
        text
    };
    assert_eq!(call("summary", json!({"file": file})), json(&["summary", &file, "--json"]));
    assert_eq!(
        call("top", json!({"file": file, "by": "category", "at": "oom", "limit": 3})),
        json(&["top", &file, "--by", "category", "--at", "oom", "--limit", "3", "--json"])
    );
    let oom = call("oom", json!({"file": file}));
    assert_eq!(oom, json(&["oom", &file, "--json"]));
    // The file's one oom trace event is its 1118th (as tests/analysis.rs reads it).
    assert_eq!(oom["devices"][0]["ooms"][0]["at"]["event"], 1117);
    assert_eq!(call("leaks", json!({"file": file, "device": 0})), json(&["leaks", &file, "--device", "0", "--json"]));
    let findings = call("findings", json!({"file": file}));
    assert_eq!(findings, json(&["findings", &file, "--json"]));
    assert!(
        findings["findings"].as_array().unwrap().iter().any(|f| f["kind"] == "oom" && f["event"] == 1117),
        "{findings}"
    );
    let whatif = call("whatif", json!({"file": file, "set": ["expandable_segments:True"]}));
    assert_eq!(whatif, json(&["whatif", &file, "--set", "expandable_segments:True", "--json"]));
    assert_eq!(whatif["recorded"]["oom_events"], json!([1117]));
    assert_eq!(
        call("diff", json!({"a": file, "b": file, "at_a": "oom", "at_b": "end", "by": "user"})),
        json(&["diff", &file, &file, "--at-a", "oom", "--at-b", "end", "--by", "user", "--json"])
    );

    // Failures are the tool's result, said in words; unknown methods JSON-RPC errors.
    let bad = ask(json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "top", "arguments": {"file": file, "by": "colour"}}}))
    .unwrap();
    assert_eq!(bad["result"]["isError"], true);
    assert!(bad["result"]["content"][0]["text"].as_str().unwrap().contains("\"colour\""), "{bad}");
    let missing = ask(json!({"jsonrpc": "2.0", "id": 51, "method": "tools/call",
        "params": {"name": "oom", "arguments": {"file": "/nonexistent.pickle"}}}))
    .unwrap();
    assert!(
        missing["result"]["content"][0]["text"].as_str().unwrap().starts_with("/nonexistent.pickle: "),
        "{missing}"
    );
    let unknown = ask(json!({"jsonrpc": "2.0", "id": 52, "method": "resources/list"})).unwrap();
    assert_eq!(unknown["error"]["code"], -32601);
}

/// GET `path` with `Host: host`: the status line and the body.
fn get(port: u16, path: &str, host: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..at]).to_string();
    (head.lines().next().unwrap().to_string(), raw[at + 4..].to_vec())
}

#[test]
fn serve_hands_out_the_viewer_and_the_files_to_loopback_names_only() {
    let a = snapshot("small_train_step.pickle");
    let b = snapshot("segments_only_list.pkl");
    let viewer = std::env::temp_dir().join(format!("memviz-serve-viewer-{}.html", std::process::id()));
    // What serve needs of a viewer: an embeddable page whose CSP forbids connections.
    std::fs::write(
        &viewer,
        "<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         connect-src 'none'\"><title>memviz</title></head><body><script>/* memviz-embedded-snapshot */</script></body></html>",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_memviz"))
        .args(["serve", &a, &b, "--viewer", viewer.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let _guard = Killed(child);
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        lines.push(l);
    }
    let url = lines[0].split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{lines:?}"));
    assert!(url.ends_with("/#file=files/0/small_train_step.pickle&file=files/1/segments_only_list.pkl"), "{url}");
    let port: u16 = url["http://127.0.0.1:".len()..].split('/').next().unwrap().parse().unwrap();
    assert!(lines[1].contains(&format!("ssh -L {port}:127.0.0.1:{port} ")), "{lines:?}");
    let host = format!("127.0.0.1:{port}");

    let (status, page) = get(port, "/", &host);
    assert_eq!(status, "HTTP/1.1 200 OK");
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("connect-src 'self'") && !page.contains("connect-src 'none'"), "{page}");
    for (i, f) in [&a, &b].iter().enumerate() {
        let (status, bytes) = get(port, &format!("/files/{i}/x"), &format!("localhost:{port}"));
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(bytes == std::fs::read(f).unwrap(), "file {i} differs");
    }
    assert_eq!(get(port, "/files/2/x", &host).0, "HTTP/1.1 404 Not Found");
    assert_eq!(get(port, "/../../etc/passwd", &host).0, "HTTP/1.1 404 Not Found");
    // Another name for this address (DNS rebinding) is refused.
    assert_eq!(get(port, "/files/0/x", &format!("attacker.example:{port}")).0, "HTTP/1.1 403 Forbidden");
}

#[test]
fn open_without_a_file_or_with_a_bad_one_says_so() {
    let o = common::memviz(&["open"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("open: FILE missing"));
    let o = common::memviz(&["open", "--no-browser", "/nonexistent.pickle"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("memviz: /nonexistent.pickle: "));
}
