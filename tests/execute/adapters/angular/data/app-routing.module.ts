
import { NgModule } from '@angular/core';
import { PreloadAllModules, RouterModule, Routes } from '@angular/router';
import { AuthenticationGuard, CanDeactivateGuard, LoginComponent, 
          ProfileEditComponent, ProfileMainLayoutComponent, ProfileOverviewComponent, 
          RegisterComponent, UnauthenticatedSpaceGuard, 
          UserDashboardComponent, 
          UsersResolver } from '@wiforge/averos';
import { CreateBookComponent } from './view/book/create-book/create-book.component';
import { SearchBookComponent } from './view/book/search-book/search-book.component';
import { BookDetailsComponent } from './view/book/book-details/book-details.component';

        const routes: Routes = [
            { path: '', redirectTo: 'public', pathMatch: 'full' },
            { path: 'login', component: LoginComponent },
            { path: 'register', component: RegisterComponent },
            { path: 'home', component: UserDashboardComponent },
            { path: 'public', loadChildren: () => import ('@wiforge/averos').then(module => module.PublicSpaceModule),
                          canActivate: [UnauthenticatedSpaceGuard]},
            { path: 'users', loadChildren: () => import ('@wiforge/averos').then(module => module.UsersModule),
                          canActivate: [AuthenticationGuard],
                          data: {preload: true}},
            {
              path: 'user/profile',
              component: ProfileMainLayoutComponent,
              canActivate: [AuthenticationGuard],
              canActivateChild: [AuthenticationGuard],
              resolve: { loggedUser: UsersResolver },
              children: [
                { path: '', redirectTo: 'overview', pathMatch: 'full' },
                {path: 'overview', component: ProfileOverviewComponent,resolve: { loggedUser: UsersResolver }},
                {path: 'settings', pathMatch: 'prefix', component: ProfileEditComponent, canDeactivate: [CanDeactivateGuard],
                  resolve: { loggedUser: UsersResolver }},
              ],
            },
            { path: 'books/create', component: CreateBookComponent, canActivate: [AuthenticationGuard]},{ path: 'books/search', component: SearchBookComponent, canActivate: [AuthenticationGuard]},{ path: 'books/view/:id', component: BookDetailsComponent, canActivate: [AuthenticationGuard]},{ path: 'books/edit/:id', component: BookDetailsComponent, canActivate: [AuthenticationGuard]},{ path: '**', redirectTo: 'public'}
          
          ];
              
  @NgModule({
    imports: [RouterModule.forRoot(routes, 
      {
        enableTracing: false,
        preloadingStrategy: PreloadAllModules,
        relativeLinkResolution: 'legacy',
        scrollPositionRestoration: 'enabled',
        anchorScrolling: 'enabled',
        onSameUrlNavigation: 'reload'
      })],
    exports: [RouterModule]
  })
  export class AppRoutingModule { }