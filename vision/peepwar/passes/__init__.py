"""The passes of the piece reader (:mod:`vision.peepwar.pieces`), each over one frame's
shared state (:mod:`.state`): Supply Centers, occlusion, peeps, beans, and the cells'
assembly."""
