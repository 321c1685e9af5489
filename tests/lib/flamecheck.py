#!/usr/bin/env python3
# flamecheck.py SVG SHOTS: opens perfkit's flame graph SVG (of the probe
# file of export_folded.sh) in headless chromium and prints "ok NAME" or
# "FAIL NAME: why" per check: a hover shows the frame's details; a click
# on V8_WorkerThread zooms it to the full width and hides java's frames;
# Reset Zoom gives the widths back; Search "plain_fn" marks its two
# frames and says "Matched: 62.50%" (500 of 800); Escape resets it.
# Screenshots (before, zoomed, searched) go to SHOTS/flame-*.png.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import Browser  # noqa: E402

svg, shots = os.path.abspath(sys.argv[1]), sys.argv[2]


def frame(name):
    return (f"//*[local-name()='g' and @class='f']"
            f"[*[local-name()='title' and starts-with(text(), '{name} (')]]")


def check(name, cond, why):
    print(f'ok {name}' if cond else f'FAIL {name}: {why}')


WIDTH = "return +arguments[0].querySelector('rect').getAttribute('width');"
SHOWN = "return arguments[0].style.display !== 'none';"
b = Browser()
try:
    b.open('file://' + svg)
    v8 = b.find(frame('V8_WorkerThread'))
    java = b.find(frame('java'))
    w0 = b.js(WIDTH, v8)
    b.screenshot(os.path.join(shots, 'flame-start.png'))
    b.hover(v8)
    det = b.js("return document.getElementById('details').textContent;")
    check('flame_browser_hover', det.startswith('V8_WorkerThread (100 '),
          f'details {det!r}')
    b.click(v8)
    w1 = b.js(WIDTH, v8)
    check('flame_browser_zoom', abs(w1 - 1180) < 0.5 and w0 < w1,
          f'width {w0} -> {w1}')
    check('flame_browser_zoom_hides', not b.js(SHOWN, java),
          'java still shown')
    b.screenshot(os.path.join(shots, 'flame-zoomed.png'))
    b.click(b.find("//*[@id='unzoom']"))
    w2 = b.js(WIDTH, v8)
    check('flame_browser_unzoom', abs(w2 - w0) < 0.5 and b.js(SHOWN, java),
          f'width {w2}, was {w0}')
    b.click(b.find("//*[@id='search']"))
    b.prompt('plain_fn')
    m = b.js("return document.getElementById('matched').textContent;")
    n = b.js("return document.querySelectorAll("
             "'rect[fill=\"rgb(230,0,230)\"]').length;")
    check('flame_browser_search', m == 'Matched: 62.50%' and n == 2,
          f'{m!r}, {n} frames marked')
    b.screenshot(os.path.join(shots, 'flame-search.png'))
    b.js("window.dispatchEvent(new KeyboardEvent('keydown', "
         "{key: 'Escape'}));")
    n = b.js("return document.querySelectorAll("
             "'rect[fill=\"rgb(230,0,230)\"]').length;")
    check('flame_browser_search_reset', n == 0, f'{n} still marked')
finally:
    b.close()
