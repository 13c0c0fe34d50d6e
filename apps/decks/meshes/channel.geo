// A 2 x 1 channel of unstructured triangles: inlet at x = 0, outlet at x = 2, walls at
// y = 0 and y = 1 (apps/decks/channel-gmsh.toml). Meshed by `gmsh -2 -format msh41
// channel.geo` into channel.msh; a deck may also name this script (geo = "...").
h = 0.08;
Point(1) = {0, 0, 0, h};
Point(2) = {2, 0, 0, h};
Point(3) = {2, 1, 0, h};
Point(4) = {0, 1, 0, h};
Point(5) = {0.7, 0.45, 0, h / 3};  // a finer spot: cells of very different sizes
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Point{5} In Surface{1};
Physical Curve("inlet") = {4};
Physical Curve("outlet") = {2};
Physical Curve("walls") = {1, 3};
Physical Surface("fluid") = {1};
