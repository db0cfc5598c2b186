// SPDX-License-Identifier: MIT
// Camera culling: an octree of props; the camera's view-projection matrix becomes a Frustum; the query returns the
// props in view (the scene seed's visibility test). Subtrees wholly inside the frustum are reported without
// testing each prop.
#include <quadrant/quadrant.hpp>

#include <array>
#include <cmath>
#include <cstdio>

namespace {
// Column-major perspective * look-at for a camera at `eye` looking down -z (OpenGL conventions).
std::array<float, 16> view_projection(quadrant::Vec3 eye, float fovy, float aspect, float near_z, float far_z) {
  const float t = 1 / std::tan(fovy / 2);
  std::array<float, 16> m{};
  m[0] = t / aspect;
  m[5] = t;
  m[10] = -(far_z + near_z) / (far_z - near_z);
  m[11] = -1;
  m[14] = -2 * far_z * near_z / (far_z - near_z);
  // The view is a translation by -eye: fold it into the last column.
  m[12] = -(m[0] * eye.x);
  m[13] = -(m[5] * eye.y);
  m[14] += -(m[10] * eye.z);
  m[15] = eye.z;
  return m;
}
}  // namespace

int main() {
  using namespace quadrant;
  Octree<int> props({.world = {{-100, -10, -100}, {100, 10, 100}}});
  int id = 0;
  for (int x = -95; x <= 95; x += 10)
    for (int z = -95; z <= 95; z += 10) props.insert({{float(x), 0, float(z)}, {float(x) + 2, 3, float(z) + 2}}, id++);

  const Frustum<float> camera = Frustum<float>::from_view_projection(view_projection({0, 5, 60}, 1.0f, 16.0f / 9, 0.5f, 120));
  int visible = 0;
  const QueryStats st = props.query(camera, [&](const int&) { ++visible; });
  int brute = 0;
  props.for_each([&](Handle, const int&, const Box3& b) { brute += overlaps(camera, b); });
  std::printf("%d of %d props in view (brute force: %d); %zu nodes visited, %zu props tested\n", visible, id, brute,
              st.nodes_visited, st.box_tests);
  return visible == brute && visible > 0 && visible < id ? 0 : 1;
}
