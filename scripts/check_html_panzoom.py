"""Pan and zoom of a report page's program cards, checked as a person uses
them (scripts/check_html_report.py runs it; docs/report.md): real mouse,
wheel and key events over the DevTools protocol. Zoom must change the
cards' drawn scale (the + button by 1.25, Ctrl+wheel around the pointer,
which stays on the same point of the card, the - key, two fingers pinched
apart by the ratio of their spread: touch events), a drag must move them by
the drag and is no click (open details stay next to their card), a
click on a card at any zoom must
open its details next to it inside the viewport, "fit" must show the whole
step inside the view and 1 restore the actual size; the zoom shown must
follow; zoomed in and panned away, a search must bring its match into the
view. On the timeline a drag that starts on a bar must pan by the drag and
open nothing, and the W and D keys must zoom and pan (timeline_pan)."""

import json
import time

STATE = """(function(sel){var b=document.getElementById('graph-0'),
c=document.querySelector(sel),s=document.getElementById('stage-0');
if(!b||!c)return null;var r=c.getBoundingClientRect(),v=b.getBoundingClientRect(),
t=s.getBoundingClientRect();
return {card:[r.left,r.top,r.width,r.height],box:[v.left+b.clientLeft,
v.top+b.clientTop,b.clientWidth,b.clientHeight],stage:[t.left,t.top,t.width,
t.height],zoom:+(b.getAttribute('data-zoom')||1),
level:document.getElementById('zoom-level-0').textContent,
scroll:[b.scrollLeft,b.scrollTop],room:[b.scrollWidth-b.clientWidth,
b.scrollHeight-b.clientHeight]};})(%s)"""

# The view in the window's middle, the card's centre at (fx, fy) of it.
PLACE = """(function(sel,fx,fy){var c=document.querySelector(sel),
b=document.getElementById('graph-0');b.scrollIntoView({block:'center'});
var r=c.getBoundingClientRect(),v=b.getBoundingClientRect();
b.scrollLeft+=r.left+r.width/2-(v.left+v.width*fx);
b.scrollTop+=r.top+r.height/2-(v.top+v.height*fy);return true;})(%s,%g,%g)"""

# A point of the view on top (not under the details), the card's first.
FREE = """(function(sel){var b=document.getElementById('graph-0'),
c=document.querySelector(sel),all=[c.getBoundingClientRect(),
b.getBoundingClientRect()];for(var k=0;k<2;k++){var r=all[k];
for(var i=1;i<10;i++)for(var j=1;j<10;j++){var x=r.left+r.width*i/10,
y=r.top+r.height*j/10,h=document.elementFromPoint(x,y);
if(h&&b.contains(h)&&x>all[1].left&&x<all[1].right&&y>all[1].top&&
y<all[1].bottom)return [x,y];}}return null;})(%s)"""

# How far the open details are from the card (0 when touching).
GAP = """(function(sel){var p=document.getElementById('popover');
if(p.hidden)return null;var a=p.getBoundingClientRect(),
c=document.querySelector(sel).getBoundingClientRect();
return Math.max(0,a.left-c.right,c.left-a.right,a.top-c.bottom,
c.top-a.bottom);})(%s)"""


def _mouse(browser, kind, x, y, **extra):
    params = {"type": kind, "x": x, "y": y}
    params.update(extra)
    browser.call("Input.dispatchMouseEvent", params, session=True)


def _key(browser, key, code):
    for kind in ("keyDown", "keyUp"):
        params = {"type": kind, "key": key, "code": code}
        if kind == "keyDown":
            params["text"] = key
        browser.call("Input.dispatchKeyEvent", params, session=True)
    time.sleep(0.05)


def _close(a, b, tolerance):
    return abs(a - b) <= tolerance


def _state(browser, selector):
    return browser.evaluate(STATE % json.dumps(selector))


def _zooms(browser, card, failures):
    """The + button, Ctrl+wheel at the card's centre and the - key."""
    before = _state(browser, card)
    if not browser.click('button[data-pz="in"][data-function="0"]'):
        return failures.append("no zoom-in button for the cards")
    after = _state(browser, card)
    ratio = after["card"][2] / before["card"][2]
    if not _close(ratio, 1.25, 0.02) or after["level"] != "125%":
        failures.append(f"zoom in (+) scaled the cards by {ratio:.3f}, "
                        f"shows {after['level']!r}; expected 1.25, '125%'")
    # Off the view's centre, so that zooming around the centre fails.
    browser.evaluate(PLACE % (json.dumps(card), 0.5, 0.5))
    before = _state(browser, card)
    box, stage = before["box"], before["stage"]
    x, y = box[0] + box[2] * 0.2, box[1] + box[3] * 0.25
    _mouse(browser, "mouseMoved", x, y)
    _mouse(browser, "mouseWheel", x, y, deltaX=0, deltaY=-100, modifiers=2)
    time.sleep(0.1)
    after = _state(browser, card)
    ratio = after["card"][2] / before["card"][2]
    # The point of the cards under the pointer stays under it.
    drift = max(abs(after["stage"][i] + (p - stage[i]) * ratio - p)
                for i, p in enumerate((x, y)))
    if ratio < 1.1 or abs(drift) > 3:
        failures.append(f"Ctrl+wheel scaled the cards by {ratio:.3f} and "
                        f"moved the point under the pointer {drift:.1f} px")
    browser.evaluate("document.getElementById('graph-0').focus()")
    before = _state(browser, card)
    _key(browser, "-", "Minus")
    after = _state(browser, card)
    if not _close(after["zoom"], before["zoom"] / 1.25, 0.01):
        failures.append(f"the - key zoomed from {before['zoom']} to "
                        f"{after['zoom']}")


def _drag(browser, card, failures):
    """A drag inside the view pans by the drag and is not a click: open
    details stay open and follow their card."""
    browser.evaluate(PLACE % (json.dumps(card), 0.5, 0.5))
    browser.click(card)
    before = _state(browser, card)
    # Towards the side with room to scroll.
    dx = -100 if before["scroll"][0] < before["room"][0] / 2 else 100
    dy = -60 if before["scroll"][1] < before["room"][1] / 2 else 60
    start = browser.evaluate(FREE % json.dumps(card))
    if not start:
        return failures.append("the details cover the whole view")
    x, y = start
    _mouse(browser, "mousePressed", x, y, button="left", clickCount=1)
    for step in range(1, 6):
        _mouse(browser, "mouseMoved", x + dx * step / 5, y + dy * step / 5,
               button="left", buttons=1)
    _mouse(browser, "mouseReleased", x + dx, y + dy, button="left",
           clickCount=1)
    time.sleep(0.1)
    after = _state(browser, card)
    moved = [after["card"][0] - before["card"][0],
             after["card"][1] - before["card"][1]]
    # By the drag, as far as the view has room to scroll.
    want = [before["scroll"][i] - min(max(before["scroll"][i] - d, 0),
                                      before["room"][i])
            for i, d in enumerate((dx, dy))]
    if (not any(want) or not _close(moved[0], want[0], 2)
            or not _close(moved[1], want[1], 2)):
        failures.append(f"dragging by ({dx}, {dy}) px moved the cards by "
                        f"({moved[0]:.0f}, {moved[1]:.0f}) px, expected "
                        f"({want[0]:.0f}, {want[1]:.0f})")
    gap = browser.evaluate(GAP % json.dumps(card))
    if gap is None or gap > 24:
        failures.append(f"after a drag the card's details are "
                        f"{'closed' if gap is None else f'{gap:.0f} px away'}")
    # Where they are is where they would be placed now (a page scroll
    # places them again).
    where = "(function(){var r=popover.getBoundingClientRect();" \
        "return [Math.round(r.left),Math.round(r.top)];})()"
    held = browser.evaluate(where)
    browser.evaluate("window.dispatchEvent(new Event('scroll'))")
    if gap is not None and held != browser.evaluate(where):
        failures.append(f"the details did not follow the dragged card: at "
                        f"{held}, placed again at {browser.evaluate(where)}")
    browser.evaluate("document.dispatchEvent(new KeyboardEvent('keydown',"
                     "{key:'Escape'}))")


def _touch(browser, kind, points):
    browser.call("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [
            {"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]},
        session=True)


def _pinch(browser, card, failures):
    """Two fingers spread from 80 to 160 px apart over the view zoom the
    cards 2x around their midpoint, and the pinch opens nothing."""
    browser.call("Emulation.setTouchEmulationEnabled",
                 {"enabled": True, "maxTouchPoints": 2}, session=True)
    try:
        browser.evaluate(PLACE % (json.dumps(card), 0.5, 0.5))
        browser.evaluate("document.dispatchEvent(new KeyboardEvent("
                         "'keydown',{key:'Escape'}))")
        before = _state(browser, card)
        box = before["box"]
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        _touch(browser, "touchStart", [(cx - 40, cy), (cx + 40, cy)])
        for step in range(1, 6):
            d = 40 + 40 * step / 5
            _touch(browser, "touchMove", [(cx - d, cy), (cx + d, cy)])
        _touch(browser, "touchEnd", [])
        time.sleep(0.1)
        after = _state(browser, card)
        ratio = after["zoom"] / before["zoom"]
        if not _close(ratio, min(2, 4 / before["zoom"]), 0.02):
            failures.append(f"a pinch from 80 to 160 px zoomed the cards by "
                            f"{ratio:.3f}, not 2")
        if browser.evaluate("!document.getElementById('popover').hidden"):
            failures.append("a pinch opened a program's details")
    finally:
        browser.call("Emulation.setTouchEmulationEnabled", {"enabled": False},
                     session=True)


def _fit(browser, card, failures):
    """fit shows the whole step; 1 is actual size again."""
    browser.click('button[data-pz="fit"][data-function="0"]')
    fitted = _state(browser, card)
    box, stage = fitted["box"], fitted["stage"]
    inside = (stage[0] >= box[0] - 1 and stage[1] >= box[1] - 1
              and stage[0] + stage[2] <= box[0] + box[2] + 1
              and stage[1] + stage[3] <= box[1] + box[3] + 1)
    if not inside or fitted["zoom"] > 1:
        failures.append(f"fit does not show the whole step: stage {stage} "
                        f"in view {box} at zoom {fitted['zoom']}")
    if fitted["level"] != f"{round(fitted['zoom'] * 100)}%":
        failures.append(f"fit shows {fitted['level']!r} at zoom "
                        f"{fitted['zoom']}")
    browser.evaluate("document.getElementById('graph-0').focus()")
    _key(browser, "1", "Digit1")
    if _state(browser, card)["zoom"] != 1:
        failures.append("the 1 key did not restore the actual size")


REVEAL = """(function(w){var b=document.getElementById('graph-0'),
s=document.getElementById('graph-search');b.scrollLeft=b.scrollWidth;
b.scrollTop=b.scrollHeight;s.value=w;s.dispatchEvent(new Event('input'));
var m=b.querySelector('.prog:not(.filtered)');if(!m)return [false,null,null];
var r=m.getBoundingClientRect(),
v=b.getBoundingClientRect(),out=[r.left>=v.left-1&&r.right<=v.right+1&&
r.top>=v.top-1&&r.bottom<=v.bottom+1,[r.left,r.top],[v.left,v.top,v.right,
v.bottom]];s.value='';s.dispatchEvent(new Event('input'));return out;})(%s)"""


def _search(browser, program, failures):
    """Zoomed in and panned away, a search brings its first match into the
    view."""
    browser.click('button[data-pz="actual"][data-function="0"]')
    for _ in range(3):  # 195 %
        browser.click('button[data-pz="in"][data-function="0"]')
    shown = browser.evaluate(REVEAL % json.dumps(f"#{program}"))
    if not shown[0]:
        failures.append(f"searching #{program} zoomed in left its first "
                        f"match outside the view: at {shown[1]}, view "
                        f"{shown[2]}")


def pan_zoom(browser, program, check_details):
    """The checks above on function 0's cards, around program `program`;
    check_details(browser, selector, program) clicks and checks details."""
    card = f"#prog-0-{program}"
    if not browser.evaluate("!!document.getElementById('stage-0')"):
        return ["the cards have no pan and zoom view (#stage-0)"]
    failures = []
    _zooms(browser, card, failures)
    _drag(browser, card, failures)
    _pinch(browser, card, failures)
    failures += check_details(browser, card, program)  # zoomed in
    _fit(browser, card, failures)
    for _ in range(4):  # zoomed out to 41 %
        browser.click('button[data-pz="out"][data-function="0"]')
    failures += check_details(browser, card, program)
    _search(browser, program, failures)
    browser.click('button[data-pz="actual"][data-function="0"]')
    if _state(browser, card)["level"] != "100%":
        failures.append("the zoom level button did not restore 100%")
    return failures


# The timeline zoomed in and scrolled to the middle, and a point on a bar
# inside the view (the drag starts there: it must not open the bar).
TIMELINE = """(function(prepare){var b=document.getElementById('timeline-0');
if(!b)return null;var svg=b.querySelector('svg');
if(prepare){b.scrollIntoView({block:'center'});
b.scrollLeft=(b.scrollWidth-b.clientWidth)/2;}
var v=b.getBoundingClientRect(),at=null;
b.querySelectorAll('rect').forEach(function(e){var r=e.getBoundingClientRect(),
lo=Math.max(r.left,v.left+170),hi=Math.min(r.right,v.right-170),
x=(lo+hi)/2,y=r.top+r.height/2;if(!at&&hi-lo>=4&&
document.elementFromPoint(x,y)===e)at=[x,y];});
return {at:at,scroll:b.scrollLeft,room:b.scrollWidth-b.clientWidth,
width:b.clientWidth,zoom:+(svg.getAttribute('data-zoom')||1),
open:!document.getElementById('popover').hidden};})(%s)"""


def timeline_pan(browser):
    """A drag on function 0's timeline pans it by the drag and opens
    nothing; W zooms in by 1.25, D pans right by a quarter of the view."""
    browser.evaluate("document.dispatchEvent(new KeyboardEvent('keydown',"
                     "{key:'Escape'}))")
    if browser.evaluate(TIMELINE % "false") is None:
        return ["no timeline (#timeline-0)"]
    for _ in range(3):  # 8x: room to pan either way
        browser.click('button[data-zoom="in"][data-function="0"]')
    before = browser.evaluate(TIMELINE % "true")
    failures = []
    if not before["at"] or before["room"] < 400:
        return [f"zoomed in 8x the timeline has no bar to drag or no room to "
                f"pan: {before}"]
    x, y = before["at"]
    _mouse(browser, "mousePressed", x, y, button="left", clickCount=1)
    for step in range(1, 6):
        _mouse(browser, "mouseMoved", x - 150 * step / 5, y, button="left",
               buttons=1)
    _mouse(browser, "mouseReleased", x - 150, y, button="left", clickCount=1)
    time.sleep(0.1)
    after = browser.evaluate(TIMELINE % "false")
    if not _close(after["scroll"] - before["scroll"], 150, 2):
        failures.append(f"dragging the timeline by -150 px scrolled it by "
                        f"{after['scroll'] - before['scroll']:.0f} px")
    if after["open"]:
        failures.append("a drag that started on a timeline bar opened its "
                        "details")
    browser.evaluate("document.getElementById('timeline-0').focus()")
    _key(browser, "d", "KeyD")
    panned = browser.evaluate(TIMELINE % "false")
    if not _close(panned["scroll"] - after["scroll"], after["width"] / 4, 2):
        failures.append(f"the D key scrolled the timeline by "
                        f"{panned['scroll'] - after['scroll']:.0f} px, not a "
                        f"quarter of its {after['width']} px")
    _key(browser, "w", "KeyW")
    zoomed = browser.evaluate(TIMELINE % "false")["zoom"]
    if not _close(zoomed / after["zoom"], 1.25, 0.01):
        failures.append(f"the W key zoomed the timeline from {after['zoom']} "
                        f"to {zoomed}")
    browser.click('button[data-zoom="fit"][data-function="0"]')
    return failures
