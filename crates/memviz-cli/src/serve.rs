//! `memviz open FILE...` and `memviz serve [FILE...]`: the viewer built into
//! this binary served on 127.0.0.1 with the files beside it, as
//! `snakeviz` or `tensorboard` do. The page reads them from this server
//! (www/share.js's `#file=`; several files open as ranks); nothing is
//! uploaded anywhere and nothing but loopback is listened on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;

use crate::{html, Opts};

/// What the server hands out: the page, and the files by index.
struct Site {
    page: String,
    files: Vec<(PathBuf, String)>,
    port: u16,
}

/// The standalone viewer forbids every connection (connect-src 'none'): here
/// it must fetch the `#file=` paths from this server, so 'self' is allowed.
fn allow_self(page: &str) -> Result<String, String> {
    const NONE: &str = "connect-src 'none'";
    if !page.contains(NONE) {
        return Err(format!("the viewer page's CSP has no {NONE:?} to open to this server: rebuild it"));
    }
    Ok(page.replacen(NONE, "connect-src 'self'", 1))
}

/// Percent-encodes a file name for a URL path segment and `#file=`.
fn encode(name: &str) -> String {
    let mut o = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// `open` (browser: true) or `serve` (browser: false unless asked).
pub fn run(cmd: &str, opts: &Opts) -> Result<(), String> {
    let mut paths: Vec<String> = opts.file.iter().cloned().collect();
    paths.extend(opts.more_files.iter().cloned());
    if cmd == "open" && paths.is_empty() {
        return Err("open: FILE missing: memviz open FILE... (memviz serve: the viewer with no file)".to_string());
    }
    let mut files = Vec::new();
    for p in &paths {
        if p == "-" {
            return Err(format!("{cmd}: FILE must be a file, not standard input"));
        }
        // A file the page could not open is reported here, not in the browser.
        crate::load_any(p)?;
        let path = PathBuf::from(p);
        let name = path.file_name().map_or(p.clone(), |n| n.to_string_lossy().into_owned());
        files.push((path, name));
    }
    // After the files: a wrong path is the likelier mistake, and says so
    // even where this binary has no viewer built in.
    let (viewer, _) = html::viewer(opts.viewer.as_deref())?;
    let page = allow_self(&viewer)?;
    let listener = TcpListener::bind(("127.0.0.1", opts.port.unwrap_or(0)))
        .map_err(|e| format!("{cmd}: 127.0.0.1:{}: {e}", opts.port.unwrap_or(0)))?;
    let port = listener.local_addr().map_err(|e| format!("{cmd}: {e}"))?.port();
    let site = Arc::new(Site { page, files, port });
    let url = url(&site);
    let browser = cmd == "open" && !opts.no_browser;
    println!("memviz: serving {} on {url}", describe(&site.files));
    if browser {
        if let Err(e) = open_browser(&url) {
            println!("memviz: could not open a browser ({e}): open the URL yourself");
        }
    } else {
        println!("memviz: from another machine: ssh -L {port}:127.0.0.1:{port} HOST, then open the URL there");
    }
    println!("memviz: Ctrl-C stops it");
    let _ = std::io::stdout().flush();
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        let site = Arc::clone(&site);
        std::thread::spawn(move || {
            // A client that went away is no error of ours.
            let _ = answer(stream, &site);
        });
    }
    Ok(())
}

fn describe(files: &[(PathBuf, String)]) -> String {
    match files {
        [] => "the viewer".to_string(),
        [(_, n)] => n.clone(),
        f => format!("{} files", f.len()),
    }
}

fn url(site: &Site) -> String {
    let hash: Vec<String> =
        site.files.iter().enumerate().map(|(i, (_, n))| format!("file=files/{i}/{}", encode(n))).collect();
    let mut u = format!("http://127.0.0.1:{}/", site.port);
    if !hash.is_empty() {
        u.push('#');
        u.push_str(&hash.join("&"));
    }
    u
}

/// $BROWSER, else the desktop's opener. Not waited for.
fn open_browser(url: &str) -> Result<(), String> {
    let (prog, args): (String, Vec<String>) = match std::env::var("BROWSER") {
        Ok(b) if !b.trim().is_empty() => (b, vec![url.to_string()]),
        _ if cfg!(target_os = "macos") => ("open".into(), vec![url.into()]),
        _ if cfg!(windows) => ("cmd".into(), vec!["/c".into(), "start".into(), String::new(), url.into()]),
        _ => ("xdg-open".into(), vec![url.into()]),
    };
    std::process::Command::new(&prog)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("{prog}: {e}"))
}

fn answer(stream: TcpStream, site: &Site) -> std::io::Result<()> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.by_ref().take(8192).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut host = String::new();
    loop {
        let mut h = String::new();
        if reader.by_ref().take(8192).read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("host") {
                host = v.trim().to_string();
            }
        }
    }
    let mut out = stream;
    // Another site's page in the same browser could reach this port under a
    // name of its own (DNS rebinding): only loopback names are answered.
    let ok_hosts = [format!("127.0.0.1:{}", site.port), format!("localhost:{}", site.port)];
    if !ok_hosts.contains(&host) {
        return respond(&mut out, "403 Forbidden", "text/plain", b"memviz: only 127.0.0.1 and localhost\n", method);
    }
    if method != "GET" && method != "HEAD" {
        return respond(&mut out, "405 Method Not Allowed", "text/plain", b"memviz: GET only\n", method);
    }
    let path = target.split(['?', '#']).next().unwrap_or("");
    if path == "/" || path == "/index.html" {
        return respond(&mut out, "200 OK", "text/html; charset=utf-8", site.page.as_bytes(), method);
    }
    if let Some(rest) = path.strip_prefix("/files/") {
        let i = rest.split('/').next().and_then(|i| i.parse::<usize>().ok());
        if let Some((file, _)) = i.and_then(|i| site.files.get(i)) {
            return match std::fs::read(file) {
                Ok(bytes) => respond(&mut out, "200 OK", "application/octet-stream", &bytes, method),
                Err(e) => {
                    respond(&mut out, "500 Internal Server Error", "text/plain", e.to_string().as_bytes(), method)
                }
            };
        }
    }
    respond(&mut out, "404 Not Found", "text/plain", b"memviz: not found\n", method)
}

fn respond(out: &mut TcpStream, status: &str, kind: &str, body: &[u8], method: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        out.write_all(body)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_percent_encoded_and_the_csp_opened_to_self_only() {
        assert_eq!(encode("rank 0/é.pickle"), "rank%200%2F%C3%A9.pickle");
        let page = "<meta content=\"default-src 'none'; connect-src 'none'; img-src data:\">";
        assert_eq!(
            allow_self(page).unwrap(),
            "<meta content=\"default-src 'none'; connect-src 'self'; img-src data:\">"
        );
        assert!(allow_self("<html>").unwrap_err().contains("rebuild"));
    }
}
