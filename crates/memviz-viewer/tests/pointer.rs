//! The plot's and the minimap's pointer (pointer.rs): what each event did,
//! as the page follows it up.

mod common;

use common::{open, FULLSTEP, H, W};
use memviz_viewer::keys::KeyDid;
use memviz_viewer::page::{PageView, ViewCommand as C};
use memviz_viewer::pointer::PointerOn as On;
use memviz_viewer::Viewer;

fn at(v: &mut Viewer, on: On, mini: bool, x: f64, y: f64) -> PageView {
    v.command(C::Pointer { on, mini, x, y, width: W as f64, dy: 0.0 }).unwrap()
}

#[test]
fn a_press_in_place_pins_a_drag_pans() {
    let mut v = open(FULLSTEP);
    v.render_plot(W, H).unwrap();
    let largest = v.largest_element().unwrap();
    let [x, y] = v.locate(largest)[..] else { panic!("largest not drawn") };
    // Hovered: the band and its card; again in place: nothing new.
    let p = at(&mut v, On::Move, false, x, y);
    assert_eq!(p.key.unwrap().did, KeyDid::Hover);
    assert_eq!(p.pointer.as_ref().unwrap().hit, largest as i32);
    assert!(p.pointer.unwrap().changed);
    assert!(!at(&mut v, On::Move, false, x, y).pointer.unwrap().changed);
    // Pressed and released within DRAG_PX: a click, which pins at the pointer.
    assert_eq!(at(&mut v, On::Down, false, x, y).key.unwrap().did, KeyDid::None);
    assert_eq!(at(&mut v, On::Move, false, x + 2.0, y).key.unwrap().did, KeyDid::None);
    let p = at(&mut v, On::Up, false, x, y);
    assert_eq!((p.key.unwrap().did, p.key.unwrap().at, p.pinned), (KeyDid::Pin, [x, y], Some(largest)));
    // Left: the pinned band stays.
    let p = at(&mut v, On::Leave, false, x, y);
    assert_eq!((p.key.unwrap().did, p.pinned), (KeyDid::Leave, Some(largest)));
    // The wheel zooms around x (deltaY < 0: in).
    let n = p.steps as f64;
    let p = v.command(C::Pointer { on: On::Wheel, mini: false, x: 600.0, y, width: W as f64, dy: -300.0 }).unwrap();
    assert_eq!(p.key.unwrap().did, KeyDid::Moved);
    assert!(p.window[1] - p.window[0] < n, "{:?} of {n}", p.window);
    // A drag pans (to the left: later steps), and its release pins nothing.
    let w0 = at(&mut v, On::Down, false, 600.0, y).window;
    let p = at(&mut v, On::Move, false, 500.0, y);
    assert_eq!(p.key.unwrap().did, KeyDid::Moved);
    assert!(p.window[0] > w0[0], "{w0:?} -> {:?}", p.window);
    let p = at(&mut v, On::Up, false, 500.0, y);
    assert_eq!((p.key.unwrap().did, p.pinned), (KeyDid::None, Some(largest)));
}

#[test]
fn the_minimap_brushes_a_window_and_centers_on_a_click() {
    let mut v = open(FULLSTEP);
    v.render_plot(W, H).unwrap();
    let w = W as f64;
    at(&mut v, On::Down, true, 0.0, 5.0);
    let p = at(&mut v, On::Move, true, w / 2.0, 5.0);
    assert_eq!(p.key.unwrap().did, KeyDid::Moved);
    assert_eq!(p.window[0], 0.0);
    assert!((p.window[1] - p.steps as f64 / 2.0).abs() <= 1.0, "{:?} of {}", p.window, p.steps);
    // Released after a brush: no centering.
    assert_eq!(at(&mut v, On::Up, true, w / 2.0, 5.0).key.unwrap().did, KeyDid::None);
    // A click at three quarters: the window's middle goes there.
    at(&mut v, On::Down, true, 0.75 * w, 5.0);
    let p = at(&mut v, On::Up, true, 0.75 * w, 5.0);
    assert_eq!(p.key.unwrap().did, KeyDid::Moved);
    let mid = (p.window[0] + p.window[1]) / 2.0;
    assert!((mid - 0.75 * p.steps as f64).abs() <= 2.0, "{:?} of {}", p.window, p.steps);
    // Not the plot's events: a minimap press leaves the plot's hover alone.
    assert_eq!(at(&mut v, On::Leave, true, 0.0, 0.0).key.unwrap().did, KeyDid::None);
}
